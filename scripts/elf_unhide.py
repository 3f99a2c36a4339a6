#!/usr/bin/env python3
"""Rewrites a static archive of 64-bit little-endian ELF objects so that its defined global and weak
symbols of hidden visibility get default visibility; nothing else changes (sizes and offsets stay).

scripts/floor_toolchain.sh builds libeltwise_cxx.so, the one copy of zig's libc++, libc++abi and
libunwind in a floor wheel, from zig's own static archives. zig compiles them with hidden
visibility (each program or shared object gets a private copy), but the wheel's shared objects pass
C++ objects and exceptions between them, so they need one exported copy, as libstdc++.so is one.

    python3 scripts/elf_unhide.py IN.a OUT.a
"""

import struct
import sys

STV_HIDDEN = 2
STB_GLOBAL, STB_WEAK = 1, 2
SHT_SYMTAB = 2


def unhide_object(data: bytearray, start: int, size: int) -> int:
    """Patches the ELF object data[start:start+size] in place; returns how many symbols changed."""
    if data[start:start + 4] != b"\x7fELF":
        return 0
    if data[start + 4] != 2 or data[start + 5] != 1:
        raise SystemExit("elf_unhide: only 64-bit little-endian ELF objects are handled")
    shoff, = struct.unpack_from("<Q", data, start + 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, start + 0x3A)
    changed = 0
    for index in range(shnum):
        header = start + shoff + index * shentsize
        sh_type, = struct.unpack_from("<I", data, header + 4)
        if sh_type != SHT_SYMTAB:
            continue
        offset, section_size, _, _, _, entsize = struct.unpack_from("<QQIIQQ", data, header + 0x18)
        for symbol in range(start + offset, start + offset + section_size, entsize):
            info, other = data[symbol + 4], data[symbol + 5]
            shndx, = struct.unpack_from("<H", data, symbol + 6)
            if (info >> 4) in (STB_GLOBAL, STB_WEAK) and shndx != 0 and other & 3 == STV_HIDDEN:
                data[symbol + 5] = other & ~3
                changed += 1
    assert start + shoff + shnum * shentsize <= start + size
    return changed


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    data = bytearray(open(source, "rb").read())
    if data[:8] != b"!<arch>\n":
        raise SystemExit(f"elf_unhide: {source} is not an ar archive")
    position, objects, changed = 8, 0, 0
    while position + 60 <= len(data):
        size = int(data[position + 48:position + 58].decode().strip())
        body = position + 60
        name = data[position:position + 16].decode().strip()
        if name not in ("/", "//", "/SYM64/"):
            objects += 1
            changed += unhide_object(data, body, size)
        position = body + size + (size & 1)
    open(target, "wb").write(data)
    print(f"elf_unhide: {source}: {changed} symbols in {objects} objects made visible")


if __name__ == "__main__":
    main()
