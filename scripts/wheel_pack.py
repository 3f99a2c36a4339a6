"""Packs an installed tree into a wheel (PEP 427) for scripts/wheel.sh's cross builds.

    python3 scripts/wheel_pack.py TREE DIST_INFO TAG OUT_DIR

TREE: what `cmake --install` put into the wheel's root (the `eltwise` package). DIST_INFO: the
.dist-info folder from scikit-build-core's prepare_metadata_for_build_wheel (METADATA, licences,
WHEEL); its WHEEL gets TAG (e.g. cp314-cp314-linux_aarch64) as its only tag. Writes
OUT_DIR/<name>-<version>-<TAG>.whl with its RECORD and prints the path.
"""

import base64
import hashlib
import os
import sys
import zipfile


def record_hash(data: bytes) -> str:
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main() -> None:
    tree, dist_info, tag, out_dir = sys.argv[1:5]
    dist_info_name = os.path.basename(os.path.normpath(dist_info))
    name_version = dist_info_name[: -len(".dist-info")]

    files: dict[str, bytes] = {}
    for base, prefix in ((tree, ""), (dist_info, dist_info_name + "/")):
        for folder, _, names in os.walk(base):
            for file_name in names:
                path = os.path.join(folder, file_name)
                archive_name = prefix + os.path.relpath(path, base).replace(os.sep, "/")
                if archive_name in files:
                    sys.exit(f"wheel_pack: {archive_name} is in both {tree} and {dist_info}")
                with open(path, "rb") as f:
                    files[archive_name] = f.read()

    wheel_file = dist_info_name + "/WHEEL"
    if wheel_file not in files:
        sys.exit(f"wheel_pack: no WHEEL in {dist_info}")
    lines = [line for line in files[wheel_file].decode().splitlines()
             if line and not line.startswith(("Tag:", "Generator:"))]
    lines[1:1] = ["Generator: eltwise scripts/wheel_pack.py"]
    files[wheel_file] = ("\n".join(lines + [f"Tag: {tag}"]) + "\n").encode()
    files.pop(dist_info_name + "/RECORD", None)

    record_name = dist_info_name + "/RECORD"
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n"
                     for name, data in sorted(files.items()))
    record += f"{record_name},,\n"

    os.makedirs(out_dir, exist_ok=True)
    wheel_path = os.path.join(out_dir, f"{name_version}-{tag}.whl")
    with zipfile.ZipFile(wheel_path, "w", zipfile.ZIP_DEFLATED) as wheel:
        # The package first and the .dist-info last, as installers expect.
        for name in sorted(files, key=lambda n: (n.startswith(dist_info_name + "/"), n)):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            # Executable bits (the extension modules) survive; everything else is rw-r--r--.
            source = os.path.join(tree, name) if not name.startswith(dist_info_name) else None
            mode = 0o755 if source and os.access(source, os.X_OK) else 0o644
            info.external_attr = (0o100000 | mode) << 16
            wheel.writestr(info, files[name])
        info = zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (0o100000 | 0o644) << 16
        wheel.writestr(info, record)
    print(wheel_path)


if __name__ == "__main__":
    main()
