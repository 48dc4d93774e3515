import sys

from vision.train.fit import main

sys.exit(main())
