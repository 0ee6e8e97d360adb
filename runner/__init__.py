"""memrun: how much memory does it cost to keep N concurrent tasks alive in runtime X?"""

__version__ = "0.1.0"
