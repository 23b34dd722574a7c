"""The card reader: camera frames and photos in, the ranks and the count of the cards face up out.

Importing this package turns off onnxruntime's telemetry, before anything here loads onnxruntime: its builds since 1.29
report each process's use to Microsoft over the network and keep a device identifier in the user's home, unless
``ORT_DISABLE_TELEMETRY`` is set when onnxruntime is first imported (it reads it once). Nothing of the referee's may
leave the machine.
"""

import os

os.environ["ORT_DISABLE_TELEMETRY"] = "1"
