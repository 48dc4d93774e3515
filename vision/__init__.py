"""Frames in, table observations out: calibration, tiles, pips, joins, the boneyard, tracking."""
