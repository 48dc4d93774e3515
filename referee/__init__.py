"""domino-referee: the rules engine and the service that referees a real domino table.

The engine modules import only the standard library and take time as an argument; the service
(`referee.app`) is where devices, vision and the network meet it.
"""

__version__ = "0.1.0"
