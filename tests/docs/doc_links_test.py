#!/usr/bin/env python3
"""Every relative link of the docs resolves: the file exists and, for a Markdown file, so does
the heading its #anchor names (GitHub's anchors: lower case, punctuation dropped, spaces to
hyphens, "-1", "-2"... for repeated headings). Docs move sections between files; a link left
behind is found here rather than by a reader."""
import functools
import os
import re
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def anchor_of(heading):
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def outside_code(path):
    """The lines of a Markdown file that are not inside a fenced code block."""
    fenced = False
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield line


@functools.lru_cache(maxsize=None)
def anchors(path):
    found, seen = set(), {}
    for line in outside_code(path):
        match = HEADING.match(line)
        if match:
            anchor = anchor_of(match.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            found.add(anchor if count == 0 else "%s-%d" % (anchor, count))
    return frozenset(found)


def broken_links(path):
    broken = []
    for line in outside_code(path):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z]+:", target):  # https:, mailto:
                continue
            name, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
            if not os.path.exists(resolved):
                broken.append("%s: no file %s" % (os.path.relpath(path, ROOT), target))
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                broken.append("%s: no heading for %s" % (os.path.relpath(path, ROOT), target))
    return broken


def markdown_files():
    files = [os.path.join(ROOT, "README.md")]
    for folder, _, names in os.walk(os.path.join(ROOT, "docs")):
        files += [os.path.join(folder, name) for name in sorted(names) if name.endswith(".md")]
    return files


class DocLinksTest(unittest.TestCase):
    def test_anchors_follow_githubs_rules(self):
        self.assertEqual(anchor_of("Run 47: every phase's submissions, and `5b433a1`"),
                         "run-47-every-phases-submissions-and-5b433a1")
        self.assertEqual(anchor_of("End to end (20,000 pending jobs, 1,502 associations)"),
                         "end-to-end-20000-pending-jobs-1502-associations")

    def test_every_relative_link_resolves(self):
        broken = [entry for path in markdown_files() for entry in broken_links(path)]
        self.assertEqual(broken, [], "\n".join(broken))


if __name__ == "__main__":
    unittest.main()
