"""One subpackage per paper: settings as data, experiments that write results/, claims."""
__all__ = ["ewsg"]
