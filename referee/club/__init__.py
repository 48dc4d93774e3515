"""The club around the tables: the ledger of players, points and bars, and tournaments."""
