"""The referee service: devices, the event log, MQTT and the one consumer that drives the engine."""
