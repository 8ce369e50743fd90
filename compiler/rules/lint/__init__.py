"""Lint rules: checks over a blueprint that Leviath accepts but that make runs misbehave.

One module per family of checks; `compiler.rules.load_rule_modules` imports every module
here, so a module that defines a rule is registered by being in this folder.
"""
