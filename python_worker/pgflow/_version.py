"""The pgflow version: shared by the Python package and the SQL schema it installs."""

__version__ = "0.2.0"
