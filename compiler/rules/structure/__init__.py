"""Structure rules: Leviath's parse and validate errors, and reference checks, over the model.

One module per family of checks; `compiler.rules.load_rule_modules` imports every module
here, so a module that defines a rule is registered by being in this folder.
"""
