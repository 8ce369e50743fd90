"""Structure rules: Leviath's parse and validate errors, and reference checks, over the model.

Importing this package registers every structure check (one module per family of checks).
"""

from . import edges, ignored, read_paths, references, region_refs, regions, stages, terminal

__all__ = ["edges", "ignored", "read_paths", "references", "region_refs", "regions", "stages", "terminal"]
