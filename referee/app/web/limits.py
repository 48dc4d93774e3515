"""Every limit of the web server, named once (the README's "The web pages" lists them)."""

# The largest request body accepted (a command is a few dozen bytes): larger gets 413.
MAX_BODY_BYTES = 16 * 1024
# The largest WebSocket message a client may send (commands, pings): larger closes the socket (1009).
MAX_WS_MESSAGE = 4 * 1024
# How deeply a client's JSON (a WebSocket message, the login body) may nest: checked before parsing,
# so `[[[[…]]]]` is refused without Python's recursive parser ever seeing it.
MAX_JSON_DEPTH = 4
# Messages waiting for one WebSocket client; a client that lets more pile up is dropped.
CLIENT_QUEUE = 256
# WebSocket clients served at once; one more is refused with 503.
MAX_CLIENTS = 500
# Malformed WebSocket messages a client may send before it is disconnected.
MAX_BAD_MESSAGES = 20
# Events kept in memory for /api/events?since=SEQ (older ones are in the event log).
EVENT_BACKLOG = 2000
# Events in one /api/events answer.
EVENTS_PAGE = 500
# Wrong PINs or tokens accepted per minute (from anyone) before the login answers 429.
WRONG_SECRETS_PER_MINUTE = 10
# How long a command from the web waits for the referee's answer before it is answered 202 (queued).
COMMAND_WAIT = 5.0
# How long a WebSocket send may take before the client is dropped (seconds).
SEND_TIMEOUT = 5.0
# The newest camera frame shown on the manager's page is encoded at most this often (seconds).
FRAME_EVERY = 1.0
# The club page's broker subscription: how many tables it follows at most.
MAX_CLUB_TABLES = 64
