"""The application that runs a table: its configuration, the service with its devices, camera,
MQTT link, event log and web pages, the demo and the command line. It composes the engine
(`referee`), `vision` and `firmware_bridge`; nothing in those imports it."""
