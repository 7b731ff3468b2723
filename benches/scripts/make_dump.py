#!/usr/bin/env python3
"""Builds a large Wikipedia-style dump from a bundled sample by repeating its pages.

    make_dump.py SAMPLE.xml.bz2 REPEAT OUT_PREFIX [--single-only]

writes OUT_PREFIX.xml.bz2 (one bzip2 stream of 900 kB blocks, as `bzip2 -9` writes it; made
with `lbzip2 -9` when installed, which writes the same format faster) and
OUT_PREFIX-multistream.xml.bz2 (one stream per 100 pages, as Wikipedia publishes its
multistream dumps, with the header and the footer in streams of their own). The XML inside
both is the sample's header, its pages REPEAT times, and its footer.
"""
import bz2
import re
import shutil
import subprocess
import sys


def main():
    sample, repeat, prefix = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    single_only = "--single-only" in sys.argv[4:]
    xml = bz2.decompress(open(sample, "rb").read())
    first = xml.index(b"  <page>")
    last = xml.rindex(b"</page>") + len(b"</page>\n")
    head, body, tail = xml[:first], xml[first:last], xml[last:]
    pages = re.findall(rb"  <page>.*?</page>\n", body, flags=re.S)
    # Single stream: let the C tool write it, as dumps are written.
    with open(prefix + ".xml.bz2", "wb") as out:
        tool = ["lbzip2", "-9", "-c"] if shutil.which("lbzip2") else ["bzip2", "-9", "-c"]
        proc = subprocess.Popen(tool, stdin=subprocess.PIPE, stdout=out)
        proc.stdin.write(head)
        for _ in range(repeat):
            proc.stdin.write(body)
        proc.stdin.write(tail)
        proc.stdin.close()
        if proc.wait() != 0:
            sys.exit("bzip2 failed")
    if single_only:
        return
    # Multistream: 100 pages per stream.
    with open(prefix + "-multistream.xml.bz2", "wb") as out:
        out.write(bz2.compress(head, 9))
        group = []
        for _ in range(repeat):
            for page in pages:
                group.append(page)
                if len(group) == 100:
                    out.write(bz2.compress(b"".join(group), 9))
                    group = []
        if group:
            out.write(bz2.compress(b"".join(group), 9))
        out.write(bz2.compress(tail, 9))


if __name__ == "__main__":
    main()
