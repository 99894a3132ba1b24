"""Small utilities every layer may use; they import nothing of rules but each other."""
