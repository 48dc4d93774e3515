"""Time and people at the table, still pure: move clocks, stepping away, leaving and substitutes,
and the table side that runs them beside the engine as its observer. Time is always an argument."""
