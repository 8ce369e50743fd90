"""`blueprint lsp`: a Language Server Protocol server over standard input and output.

It gives an editor what the command line knows, as the user types: `validate`'s findings (and
`check`'s on save), navigation between stage and region names, rename, completion, hover, quick
fixes and an outline. Everything is derived from the same layers the CLI uses — the pipeline,
the position index, the typed model, the one JSON Schema and the rule registry.

pygls and lsprotocol (dependencies of the install) are imported only by `compiler.lsp.server`; nothing
else in the project imports this package, so `blueprint validate` never pays for it.
"""
