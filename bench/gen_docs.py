#!/usr/bin/env python3
"""A site with documents for bench/documents.sh (Documents = yes, SPEC §19).

gen_docs.py OUT PAGES [REAL_PDF ...]

PAGES HTML pages in 20 sections (home -> sections -> pages, each page linking its neighbours);
every third page links a PDF of its own, written here (two pages of text, a link annotation to
another page of the site and one to another site); every tenth a copy of one of REAL_PDF
(made distinct by a comment after %%EOF: the crawler reads them whole); every twentieth a docx.
"""
import os
import sys
import zipfile


def pdf(lines_per_page, links):
    """A PDF (bytes): pages of Helvetica text; links: (page index, uri, contents)."""
    objects = [None, None, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for i, lines in enumerate(lines_per_page):
        page_id = len(objects) + 1
        content_id = page_id + 1
        mine = [l for l in links if l[0] == i]
        annots = [content_id + 1 + k for k in range(len(mine))]
        kids.append(f"{page_id} 0 R")
        objects.append(
            (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
             f"/Contents {content_id} 0 R /Annots [{' '.join(f'{a} 0 R' for a in annots)}] >>").encode())
        text = "BT /F1 11 Tf 72 720 Td 13 TL\n" + "".join(f"({l}) Tj T*\n" for l in lines) + "ET\n"
        objects.append(f"<< /Length {len(text)} >>\nstream\n{text}endstream".encode())
        for k, (_, uri, contents) in enumerate(mine):
            objects.append(
                (f"<< /Type /Annot /Subtype /Link /Rect [72 {600 - 20 * k} 300 {614 - 20 * k}] "
                 f"/A << /S /URI /URI ({uri}) >> /Contents ({contents}) >>").encode())
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects):
        offsets.append(len(out))
        out += f"{i + 1} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for o in offsets:
        out += f"{o:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


WORDS = ("research teaching university library faculty department students report annual "
         "science history courses program open access journal archive").split()


def sentence(n, k):
    return " ".join(WORDS[(n * 7 + k * 3 + j) % len(WORDS)] for j in range(9))


def main():
    out, pages = sys.argv[1], int(sys.argv[2])
    real = [open(p, "rb").read() for p in sys.argv[3:]]
    sections = 20
    os.makedirs(os.path.join(out, "docs"), exist_ok=True)
    per = (pages + sections - 1) // sections
    home = ["<html><head><title>Home</title></head><body><nav>"]
    for s in range(sections):
        home.append(f'<a href="/s{s}/index.html">Section {s}</a> ')
    home.append("</nav><main><p>The generated university.</p></main></body></html>")
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write("".join(home))
    for s in range(sections):
        d = os.path.join(out, f"s{s}")
        os.makedirs(d, exist_ok=True)
        links = "".join(f'<a href="p{p}.html">Page {p}</a> ' for p in range(per))
        with open(os.path.join(d, "index.html"), "w") as f:
            f.write(f"<html><title>Section {s}</title><body><nav><a href=/>Home</a></nav>"
                    f"<main>{links}</main></body></html>")
        for p in range(per):
            n = s * per + p
            docs = []
            if n % 3 == 0:
                name = f"/docs/r{n}.pdf"
                other = f"/s{(s + 1) % sections}/p{(p * 7) % per}.html"
                body = pdf([[sentence(n, k) for k in range(20)], [sentence(n + 1, k) for k in range(20)]],
                           [(0, other, f"Section {(s + 1) % sections}"),
                            (1, f"http://partner{n % 50}.example/", "Partner")])
                with open(os.path.join(out, name[1:]), "wb") as f:
                    f.write(body)
                docs.append(f'<a href="{name}">Report {n}</a>')
            if real and n % 10 == 0:
                name = f"/docs/big{n}.pdf"
                with open(os.path.join(out, name[1:]), "wb") as f:
                    f.write(real[n % len(real)] + f"%{n}\n".encode())
                docs.append(f'<a href="{name}">Manual {n}</a>')
            if n % 20 == 0:
                name = f"/docs/d{n}.docx"
                with zipfile.ZipFile(os.path.join(out, name[1:]), "w") as z:
                    z.writestr("[Content_Types].xml", "<Types/>")
                    z.writestr("word/document.xml", f"<w>{sentence(n, 0)}</w>")
                docs.append(f'<a href="{name}">Word {n}</a>')
            with open(os.path.join(d, f"p{p}.html"), "w") as f:
                f.write(f"<html><head><title>Page {n}</title></head><body>"
                        f"<nav><a href=/>Home</a> <a href=index.html>Section {s}</a></nav>"
                        f"<main><p>{sentence(n, 0)}. {sentence(n, 1)}.</p>"
                        f'<a href="p{(p + 1) % per}.html">Next</a> <a href="p{(p - 1) % per}.html">Previous</a> '
                        f"{' '.join(docs)}</main><footer>(c) 2026</footer></body></html>")


main()
