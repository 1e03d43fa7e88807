"""``torch.hub``'s checkpoint downloads: `load_state_dict_from_url` (also
``pyad.utils.model_zoo.load_url``) and `download_url_to_file`, with torch's cache layout
(``<hub dir>/checkpoints/<file name>``) and ``check_hash`` (the hex digits after the last
``-`` of the file name are a prefix of its SHA-256).

The file is fetched with ``urllib`` (``http(s)://`` and ``file://`` URLs) into a
temporary file next to the destination, hashed while it is read, and moved into place only
when complete (and when the hash matches), so an interrupted download leaves no cache
entry. The checkpoint must be in pyad's format (`pyad.save`); it is read with `pyad.load`.
The hub directory is ``$PYAD_HOME/hub`` (``PYAD_HOME`` defaults to
``$XDG_CACHE_HOME/pyad``, else ``~/.cache/pyad``) unless `set_dir` names another.
Loading models from GitHub repositories (``torch.hub.load``) is not provided.
"""
import hashlib
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url"]

# the hash prefix in a checkpoint's file name: "resnet18-5c106cde.pth" -> "5c106cde"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
READ_DATA_CHUNK = 128 * 1024

_hub_dir = None


def _get_pyad_home():
    return os.path.expanduser(os.getenv(
        "PYAD_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "pyad")))


def get_dir():
    """The directory checkpoints are cached under (``<dir>/checkpoints``)."""
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_pyad_home(), "hub")


def set_dir(d):
    """Cache downloads under ``d`` from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download ``url`` to the path ``dst``, atomically: into a temporary file in
    ``dst``'s directory, checked against ``hash_prefix`` (the start of the SHA-256 hex
    digest) if given, then moved to ``dst``. ``progress`` writes the byte count to
    stderr when done."""
    dst = os.path.expanduser(dst)
    dst_dir = os.path.dirname(os.path.abspath(dst))
    os.makedirs(dst_dir, exist_ok=True)
    req = urllib.request.Request(url, headers={"User-Agent": "pyad.hub"})
    with urllib.request.urlopen(req) as u:
        f = tempfile.NamedTemporaryFile(delete=False, dir=dst_dir, prefix=".partial-")
        try:
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            total = 0
            while True:
                buffer = u.read(READ_DATA_CHUNK)
                if not buffer:
                    break
                f.write(buffer)
                total += len(buffer)
                if sha256 is not None:
                    sha256.update(buffer)
            f.flush()
            os.fsync(f.fileno())
            f.close()
            if sha256 is not None:
                digest = sha256.hexdigest()
                if digest[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError('invalid hash value (expected "%s", got "%s")'
                                       % (hash_prefix, digest))
            shutil.move(f.name, dst)
            if progress:
                sys.stderr.write("%d bytes written to %s\n" % (total, dst))
        finally:
            f.close()
            if os.path.exists(f.name):
                os.remove(f.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """The object saved at ``url`` (a `pyad.save` checkpoint, usually a state dict),
    downloaded into ``model_dir`` (default ``<hub dir>/checkpoints``) unless already
    there, then read with `pyad.load` (``map_location`` as there). ``file_name`` names the
    cached file (default: the URL's last path component); ``check_hash`` checks the
    download against the hash prefix in that name, as torch's."""
    import pyad
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = os.path.basename(urllib.parse.urlparse(url).path)
    if file_name is not None:
        filename = file_name
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        if progress:
            sys.stderr.write('Downloading: "%s" to %s\n' % (url, cached_file))
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    return pyad.load(cached_file, map_location=map_location, weights_only=weights_only)
