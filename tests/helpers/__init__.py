"""Helpers shared by the tests. A test module imports from here (or gets a fixture from a
conftest.py), never from another test module."""
