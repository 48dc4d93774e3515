"""The scoreboard protocol, sans-IO: framing (`codec`), message types (`messages`), the host's
session state machine (`session`) and the board's side (`board`). No serial port, thread or clock."""
