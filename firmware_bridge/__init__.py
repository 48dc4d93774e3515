"""The scoreboard microcontroller over serial, and buttons, buzzer and LEDs on GPIO."""
