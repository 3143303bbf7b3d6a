#!/usr/bin/env python3
"""Minimal PNG reader/writer (8-bit RGB/RGBA, no interlace) with the standard library only, for
checking report.html's screenshot: size, share of non-blank pixels, distinct colours; and for
cropping a tall screenshot into viewable pieces.

    png_tool.py stats FILE            -> prints "width height nonwhite_share colours"
    png_tool.py crop FILE TOP HEIGHT OUT
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError(f"{path}: unsupported PNG (depth {depth}, colour {colour}, interlace {interlace})")
        elif kind == b"IDAT":
            idat += body
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 255
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def write_png(path, width, channels, rows):
    raw = b"".join(b"\x00" + row for row in rows)
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, len(rows), 8, 2 if channels == 3 else 6, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def stats(path):
    width, height, channels, rows = read_png(path)
    nonwhite, colours = 0, set()
    for row in rows[::4]:
        for x in range(0, width * channels, channels * 4):
            pixel = row[x:x + 3]
            colours.add(pixel)
            if min(pixel) < 240:
                nonwhite += 1
    sampled = len(rows[::4]) * len(range(0, width * channels, channels * 4))
    return width, height, nonwhite / sampled, len(colours)


if __name__ == "__main__":
    if sys.argv[1] == "stats":
        width, height, share, colours = stats(sys.argv[2])
        print(width, height, f"{share:.4f}", colours)
    elif sys.argv[1] == "crop":
        width, height, channels, rows = read_png(sys.argv[2])
        top, size = int(sys.argv[3]), int(sys.argv[4])
        write_png(sys.argv[5], width, channels, rows[top:top + size])
