"""A picture file read and written by its bytes: Python opens the file, OpenCV only decodes and encodes.

Why: ``cv2.imread`` and ``cv2.imwrite`` take the file's name as text, and a name that is not UTF-8 (on Linux bytes
such as ``b"card\\xff.png"``, which Python holds as a surrogate-escaped str) ended the training tools before any pixel
was read (OpenCV 5.1 crashed with a segmentation fault); OpenCV's own handling of names outside ASCII is not the same
on every platform either. The reader reads its photos from bytes already (``vision.reader.load_image``), refusing what
is no picture with a reason; these keep ``cv2.imread``'s and ``cv2.imwrite``'s answers (None, False) for the tools
that act on them.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np


def read(path: str | os.PathLike, flags: int = cv2.IMREAD_COLOR) -> np.ndarray | None:
    """The picture in the file at ``path``, decoded with ``flags`` as ``cv2.imread`` would; None, as it gives, where
    the file cannot be read (missing, a folder, not allowed) or is no picture OpenCV decodes (empty included)."""
    try:
        data = np.fromfile(path, np.uint8)
    except OSError:
        return None
    return cv2.imdecode(data, flags) if data.size else None


def write(path: str | os.PathLike, picture: np.ndarray, params: tuple[int, ...] | list[int] = ()) -> bool:
    """``picture`` written to ``path`` in the format its suffix names, with OpenCV's encoding ``params`` (a JPEG's
    quality...); False, as ``cv2.imwrite`` gives, where OpenCV cannot encode it. A file that cannot be written raises
    OSError, where ``cv2.imwrite`` answered False and a training tool went on without the picture."""
    encoded, data = cv2.imencode(Path(path).suffix, picture, list(params))
    if encoded:
        Path(path).write_bytes(data.tobytes())
    return bool(encoded)
