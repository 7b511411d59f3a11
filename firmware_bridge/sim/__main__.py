import sys

from firmware_bridge.sim import main

sys.exit(main())
