#!/usr/bin/env python3
import os
import sys

sys.dont_write_bytecode = True  # keep the example folder free of caches
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import tonomi  # noqa: E402

if __name__ == "__main__":
    tonomi.main(lambda doc: tonomi.discover_all("petclinic", doc))
