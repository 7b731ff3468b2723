# A package, so that this directory's conftest.py is imported as `compat.conftest` and does not
# take the place of python/tests/conftest.py, which test_bindings.py imports as `conftest`.
