"""Thrum on labgrid: a driver and a strategy for rigs in a labgrid farm (docs/hil.md).

Import this module from a labgrid environment file (``imports: [thrum_labgrid]``) to register
``ThrumDriver`` and ``ThrumStrategy`` with labgrid's target factory.
"""

from .driver import ThrumDriver, ThrumError
from .strategy import ThrumStrategy

__all__ = ["ThrumDriver", "ThrumError", "ThrumStrategy"]
