"""Instance families, one file each; every module here is imported by the registry."""
