"""Structure rules: Leviath's parse and validate errors, and reference checks, over the model.

Importing this package registers every structure check (one module per family).
"""
