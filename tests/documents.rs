//! Documents as nodes and the text of every node (SPEC §19, issue 67), through real crawls of
//! a loopback site of real PDFs made here (`common::docs`), office documents, a `.pdf` URL
//! that answers HTML and an extensionless URL that answers a PDF; hostile PDFs; text.csv
//! against poppler's `pdftotext`.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use common::docs::{self, Annot, Page};
use common::site_folder as folder;
use common::{TestWeb, crawl, read_csv};
use rccrawler::base::loopback::{Resp, Route};

const PDF: &str = "application/pdf";
const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const ODT: &str = "application/vnd.oasis.opendocument.text";

/// PDFs are read in a child process, as the binary reads them.
fn use_the_binary_as_reader() {
    rccrawler::crawl::parse::pdf_child::use_reader(PathBuf::from(env!("CARGO_BIN_EXE_rccrawler")));
}

/// The report PDF: two pages, links to a page, another PDF, another site and a mail address.
fn report_pdf(port: u16) -> Vec<u8> {
    let second = format!("http://a.test:{port}/second.pdf");
    let partner = format!("http://b.test:{port}/partner.html");
    docs::pdf(&[
        Page {
            lines: &[
                "Annual report of the test university",
                "Research and teaching in 2026",
            ],
            links: &[
                Annot {
                    uri: "/page.html",
                    contents: Some("The page the report names"),
                },
                Annot {
                    uri: &second,
                    contents: None,
                },
            ],
        },
        Page {
            lines: &["Partners and contacts"],
            links: &[
                Annot {
                    uri: &partner,
                    contents: Some("Partner site"),
                },
                Annot {
                    uri: "mailto:office@a.test",
                    contents: None,
                },
            ],
        },
    ])
}

/// The settings of a crawl of the doc site: documents on, a 2,000,000-byte limit that its one
/// large PDF goes over (the others are far below it), and `more`.
fn documents(more: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut all = vec![("Documents", "yes"), ("MaxDocumentBytes", "2000000")];
    all.extend_from_slice(more);
    all
}

/// The doc site on a.test; returns its hosts.txt lines (a.test and the plain c.test).
fn doc_site(web: &TestWeb) -> Vec<String> {
    let port = web.port();
    web.page(
        "a.test",
        "/",
        "<html><head><title>Home</title></head><body><nav><a href=/>Home</a></nav>\
         <main><p>The documents of the test university are listed below for every reader.</p>\
         <a href=/report.pdf>Report</a> <a href=/second.pdf>Second</a> \
         <a href=/nolinks.pdf>Plain</a> <a href=/broken.pdf>Broken</a> \
         <a href=/big.pdf>Big</a> <a href=/same1.pdf>Same 1</a> <a href=/same2.pdf>Same 2</a> \
         <a href=/doc.docx>Word</a> <a href=/sheet.xlsx>Sheet</a> <a href=/text.odt>Text</a> \
         <a href=/fake.pdf>Fake</a> <a href=/download?id=7>Download</a></main></body></html>",
    );
    let pdf = |target: &str, body: Vec<u8>| web.set("a.test", target, Resp::new(200, PDF, body));
    let report = report_pdf(port);
    pdf("/report.pdf", report.clone());
    pdf("/broken.pdf", report[..report.len() / 2].to_vec());
    pdf(
        "/second.pdf",
        docs::pdf(&[Page {
            lines: &["The second document"],
            links: &[
                Annot {
                    uri: "/",
                    contents: Some("Home"),
                },
                Annot {
                    uri: "deep.html",
                    contents: Some("Deeper"),
                },
            ],
        }]),
    );
    pdf(
        "/nolinks.pdf",
        docs::pdf(&[Page {
            lines: &["A plain document without links", "Its second line of words"],
            links: &[],
        }]),
    );
    let same = docs::pdf(&[Page {
        lines: &["One document at two addresses"],
        links: &[],
    }]);
    pdf("/same1.pdf", same.clone());
    pdf("/same2.pdf", same.clone());
    // Over MaxDocumentBytes (2,000,000 here): a valid PDF padded with a comment.
    let mut big = same;
    big.extend(std::iter::repeat_n(b'%', 2_100_000));
    pdf("/big.pdf", big);
    let zip = docs::zip(&[
        ("[Content_Types].xml", b"<Types/>"),
        ("word/document.xml", b"<w/>"),
    ]);
    web.set("a.test", "/doc.docx", Resp::new(200, DOCX, zip.clone()));
    let sheet = docs::zip(&[
        ("[Content_Types].xml", b"<Types/>"),
        ("xl/workbook.xml", b"<x/>"),
    ]);
    web.set("a.test", "/sheet.xlsx", Resp::new(200, XLSX, sheet));
    let odt = docs::zip(&[("mimetype", ODT.as_bytes()), ("content.xml", b"<o/>")]);
    web.set("a.test", "/text.odt", Resp::new(200, ODT, odt));
    web.page(
        "a.test",
        "/fake.pdf",
        "<html><title>Not a PDF</title><body><p>An HTML page at a .pdf address</p></body></html>",
    );
    pdf(
        "/download?id=7",
        docs::pdf(&[Page {
            lines: &["Served without an extension"],
            links: &[],
        }]),
    );
    web.page(
        "a.test",
        "/page.html",
        "<html><title>Named</title><body><p>Reached from the report.</p></body></html>",
    );
    web.page(
        "a.test",
        "/deep.html",
        "<html><title>Deep</title><body><p>Reached from the second document.</p></body></html>",
    );
    web.page(
        "b.test",
        "/partner.html",
        "<html><body>Partner</body></html>",
    );
    // The control site: pages only.
    web.page(
        "c.test",
        "/",
        "<html><title>C</title><body><a href=/x.html>X</a> <a href=http://b.test/>B</a></body></html>",
    );
    web.page(
        "c.test",
        "/x.html",
        "<html><title>X</title><body><a href=/>Home</a></body></html>",
    );
    ["a.test", "c.test"]
        .iter()
        .map(|h| format!("{};2;4;0", web.origin(h)))
        .collect()
}

/// `path` of a URL on the test web (`/x` of `http://a.test:PORT/x`).
fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest.find('/').map_or("/".into(), |i| rest[i..].to_owned())
}

/// nodes.csv as path → (level, type, bytes), and id → path.
type Nodes = BTreeMap<String, (u32, String, u64)>;

fn nodes(dir: &Path) -> (Nodes, BTreeMap<String, String>) {
    let (h, rows) = read_csv(&dir.join("nodes.csv"));
    let col = |n: &str| {
        h.iter()
            .position(|c| c == n)
            .unwrap_or_else(|| panic!("no {n}"))
    };
    let (id, label, level, bytes) = (col("Id"), col("Label"), col("Level"), col("Bytes"));
    let ty = h.iter().position(|c| c == "Type");
    let mut out = Nodes::new();
    let mut ids = BTreeMap::new();
    for r in rows {
        let t = ty.map_or(String::new(), |t| r[t].clone());
        out.insert(
            path_of(&r[label]),
            (r[level].parse().unwrap(), t, r[bytes].parse().unwrap()),
        );
        ids.insert(r[id].clone(), path_of(&r[label]));
    }
    (out, ids)
}

fn arcs(dir: &Path, ids: &BTreeMap<String, String>) -> BTreeSet<(String, String)> {
    let (_, rows) = read_csv(&dir.join("edges.csv"));
    rows.iter()
        .map(|r| (ids[&r[0]].clone(), ids[&r[1]].clone()))
        .collect()
}

#[test]
fn documents_are_nodes_by_their_content_type_with_a_pdf_s_links_followed() {
    use_the_binary_as_reader();
    let web = TestWeb::new();
    let hosts = doc_site(&web);
    let c = crawl(&hosts, &documents(&[]));
    let a = folder(&c.results(), "a.test");
    let (nodes, ids) = nodes(&a);
    let got: BTreeMap<String, (u32, String)> = nodes
        .iter()
        .map(|(p, (lv, t, _))| (p.clone(), (*lv, t.clone())))
        .collect();
    let want: BTreeMap<String, (u32, String)> = [
        ("/", (0, "html")),
        ("/report.pdf", (1, "pdf")),
        ("/second.pdf", (1, "pdf")),
        ("/nolinks.pdf", (1, "pdf")),
        ("/broken.pdf", (1, "pdf")),
        ("/same1.pdf", (1, "pdf")),
        ("/doc.docx", (1, "docx")),
        ("/sheet.xlsx", (1, "xlsx")),
        ("/text.odt", (1, "odt")),
        ("/fake.pdf", (1, "html")),
        ("/download?id=7", (1, "pdf")),
        ("/page.html", (2, "html")),
        ("/deep.html", (2, "html")),
    ]
    .into_iter()
    .map(|(p, (lv, t))| (p.to_owned(), (lv, t.to_owned())))
    .collect();
    assert_eq!(got, want);
    // Bytes are the document's own.
    assert_eq!(nodes["/report.pdf"].2, report_pdf(web.port()).len() as u64);
    // The PDFs' link annotations are arcs, followed like a page's links.
    let arcs = arcs(&a, &ids);
    for (from, to) in [
        ("/report.pdf", "/page.html"),
        ("/report.pdf", "/second.pdf"),
        ("/second.pdf", "/"),
        ("/second.pdf", "/deep.html"),
    ] {
        assert!(
            arcs.contains(&(from.into(), to.into())),
            "{from} -> {to}: {arcs:?}"
        );
    }
    // Other documents, and PDFs without annotations, are leaves.
    for leaf in [
        "/doc.docx",
        "/sheet.xlsx",
        "/text.odt",
        "/nolinks.pdf",
        "/broken.pdf",
    ] {
        assert!(!arcs.iter().any(|(f, _)| f == leaf), "{leaf} has arcs");
    }
    // The PDF's link to another site is an external link, with the annotation's text.
    let (_, ext) = read_csv(&a.join("external_links.csv"));
    let ext: Vec<(String, String, String)> = ext
        .iter()
        .map(|r| (ids[&r[0]].clone(), path_of(&r[1]), r[3].clone()))
        .collect();
    assert_eq!(
        ext,
        vec![(
            "/report.pdf".into(),
            "/partner.html".into(),
            "Partner site".into()
        )]
    );
    // The network of sites counts the PDF's external link: a.test's only one.
    let (_, net_nodes) = read_csv(&c.results().join("network/nodes.csv"));
    let id_of = |label: &str| {
        net_nodes
            .iter()
            .find(|r| r[1].contains(label))
            .map(|r| r[0].clone())
            .unwrap_or_else(|| panic!("no {label} in the network: {net_nodes:?}"))
    };
    let (a_id, b_id) = (id_of("a.test"), id_of("b.test"));
    let (_, net_edges) = read_csv(&c.results().join("network/edges.csv"));
    assert!(
        net_edges
            .iter()
            .any(|e| e[0] == a_id && e[1] == b_id && e[3] == "1"),
        "{net_edges:?}"
    );
    // Bad links: the document over the limit (named), the PDF's mailto.
    let (_, bad) = read_csv(&a.join("bad_links.csv"));
    let reasons: BTreeMap<String, String> =
        bad.iter().map(|r| (path_of(&r[1]), r[2].clone())).collect();
    assert_eq!(
        reasons.get("/big.pdf").map(String::as_str),
        Some("document over MaxDocumentBytes (2000000 bytes)"),
        "{reasons:?}"
    );
    assert!(
        bad.iter().any(|r| r[1] == "mailto:office@a.test"),
        "{bad:?}"
    );
    // Two URLs with the same bytes are one node.
    let (_, dup) = read_csv(&a.join("duplicates.csv"));
    assert!(
        dup.iter().any(|r| path_of(&r[0]) == "/same2.pdf"),
        "{dup:?}"
    );
    // The damaged PDF is a node without links and a line on the error log.
    let errors =
        std::fs::read_to_string(c.dir.path().join("logs/error_log.csv")).unwrap_or_default();
    assert!(
        errors
            .lines()
            .any(|l| l.contains("/broken.pdf") && l.contains("unreadable PDF")),
        "{errors}"
    );
    // summary.csv counts the documents, by type.
    let (h, rows) = read_csv(&c.results().join("summary.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    let row = rows
        .iter()
        .find(|r| r[col("Site")].contains("a.test"))
        .unwrap();
    assert_eq!(row[col("Documents")], "9");
    assert_eq!(row[col("DocumentTypes")], "pdf 6; docx 1; xlsx 1; odt 1");
    let c_row = rows
        .iter()
        .find(|r| r[col("Site")].contains("c.test"))
        .unwrap();
    assert_eq!(c_row[col("Documents")], "0");
    // The GEXF carries the type.
    let gexf = std::fs::read_to_string(a.join("graph.gexf")).unwrap();
    assert!(
        gexf.contains(r#"<attvalue for="type" value="pdf"/>"#),
        "{gexf}"
    );
    common::xmllint_validates(&a.join("graph.gexf"));
    // No text.csv without PageText, and no link to one.
    assert!(!a.join("text.csv").exists());
    let report_html = std::fs::read_to_string(c.results().join("report.html")).unwrap();
    assert!(!report_html.contains("text.csv"));
    // The report, as a browser shows it: each site's documents, by type.
    let report = format!("file://{}", c.results().join("report.html").display());
    if let Some((dom, _)) = common::chromium::dump_dom(&report) {
        let table = &dom[dom.find("id=\"sites-table\"").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        assert!(table.contains("document types"), "{table}");
        let at = table.find("a.test").unwrap();
        let row = &table[at..at + table[at..].find("</tr>").unwrap()];
        assert!(
            row.contains(">9<") && row.contains("pdf 6; docx 1; xlsx 1; odt 1"),
            "{row}"
        );
    }
}

#[test]
fn with_documents_off_the_extension_rule_holds_and_a_plain_site_is_unchanged_but_for_type() {
    use_the_binary_as_reader();
    let web = TestWeb::new();
    let hosts = doc_site(&web);
    let off = crawl(&hosts, &[]);
    let on = crawl(&hosts, &[("Documents", "yes")]);
    let a = folder(&off.results(), "a.test");
    let (nodes, _) = nodes(&a);
    assert_eq!(
        nodes.keys().cloned().collect::<Vec<_>>(),
        vec!["/".to_owned()],
        "with Documents = no only the home page is a node"
    );
    let (_, bad) = read_csv(&a.join("bad_links.csv"));
    let reasons: BTreeMap<String, String> =
        bad.iter().map(|r| (path_of(&r[1]), r[2].clone())).collect();
    assert_eq!(reasons["/report.pdf"], "not html (extension pdf)");
    assert_eq!(reasons["/fake.pdf"], "not html (extension pdf)");
    assert_eq!(reasons["/download?id=7"], "not html (application/pdf)");
    // The plain site: every file byte-identical but nodes.csv's Type column and the GEXF's
    // type attribute.
    let (c_off, c_on) = (
        folder(&off.results(), "c.test"),
        folder(&on.results(), "c.test"),
    );
    for f in [
        "edges.csv",
        "external_links.csv",
        "bad_links.csv",
        "yield.csv",
    ] {
        assert_eq!(
            std::fs::read(c_off.join(f)).unwrap(),
            std::fs::read(c_on.join(f)).unwrap(),
            "{f}"
        );
    }
    let strip_type = |text: String| -> String {
        text.lines()
            .map(|l| {
                l.strip_suffix(",Type")
                    .or_else(|| l.strip_suffix(",\"html\""))
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let nodes_off = std::fs::read_to_string(c_off.join("nodes.csv")).unwrap();
    let nodes_on = std::fs::read_to_string(c_on.join("nodes.csv")).unwrap();
    assert_ne!(nodes_off, nodes_on);
    assert_eq!(nodes_off.trim_end(), strip_type(nodes_on));
    let gexf_on = std::fs::read_to_string(c_on.join("graph.gexf")).unwrap().replace(
        "\n      <attribute id=\"type\" title=\"Type\" type=\"string\"><default>html</default></attribute>",
        "",
    );
    assert_eq!(
        std::fs::read_to_string(c_off.join("graph.gexf")).unwrap(),
        gexf_on
    );
}

/// The words poppler's `pdftotext` reads in `pdf`.
fn pdftotext_words(pdf: &[u8]) -> Option<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.pdf");
    std::fs::write(&file, pdf).unwrap();
    let out = std::process::Command::new("pdftotext")
        .arg(&file)
        .arg("-")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI: pdftotext is missing (.ci/run installs Debian's poppler-utils)"
            );
            return None;
        }
    };
    assert!(out.status.success());
    Some(
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
    )
}

#[test]
fn text_csv_has_every_node_s_text_and_pdf_words_agree_with_pdftotext() {
    use_the_binary_as_reader();
    let web = TestWeb::new();
    let hosts = doc_site(&web);
    let c = crawl(&hosts, &documents(&[("PageText", "yes")]));
    let a = folder(&c.results(), "a.test");
    let (_, ids) = nodes(&a);
    let (h, rows) = read_csv(&a.join("text.csv"));
    assert_eq!(h, ["Id", "Words", "Text"]);
    assert_eq!(rows.len(), ids.len(), "a row per node");
    let text: BTreeMap<String, (u32, String)> = rows
        .iter()
        .map(|r| (ids[&r[0]].clone(), (r[1].parse().unwrap(), r[2].clone())))
        .collect();
    // The home page: its main text, without the navigation, anchors included.
    assert!(
        text["/"]
            .1
            .starts_with("The documents of the test university are listed below")
    );
    assert!(!text["/"].1.contains("Home"), "{:?}", text["/"]);
    assert_eq!(
        text["/page.html"],
        (4, "Reached from the report.".to_owned())
    );
    // A PDF's words are pdftotext's.
    let pdfs: [(&str, Vec<u8>); 2] = [
        ("/report.pdf", report_pdf(web.port())),
        (
            "/nolinks.pdf",
            docs::pdf(&[Page {
                lines: &["A plain document without links", "Its second line of words"],
                links: &[],
            }]),
        ),
    ];
    for (path, bytes) in pdfs {
        let ours: Vec<&str> = text[path].1.split(' ').collect();
        if let Some(theirs) = pdftotext_words(&bytes) {
            assert_eq!(ours, theirs, "{path}");
        }
        assert_eq!(text[path].0 as usize, ours.len());
    }
    // The report links each site's text.csv with its other files.
    let report = std::fs::read_to_string(c.results().join("report.html")).unwrap();
    assert!(
        report.contains("/text.csv\">text.csv</a>"),
        "no link to text.csv"
    );
    // A document without readable text: an empty row.
    assert_eq!(text["/doc.docx"], (0, String::new()));
    assert_eq!(text["/broken.pdf"], (0, String::new()));

    // MaxTextBytes cuts a text on a word boundary and says so; Words counts them all.
    let cut = crawl(
        &hosts,
        &documents(&[("PageText", "yes"), ("MaxTextBytes", "100")]),
    );
    let a = folder(&cut.results(), "a.test");
    let (_, rows) = read_csv(&a.join("text.csv"));
    let home = &rows[0];
    assert!(home[2].len() <= 100 + " […]".len(), "{home:?}");
    assert!(home[2].ends_with(" […]"), "{home:?}");
    assert_eq!(home[1], text["/"].0.to_string());
}

/// A server that answers with a 1 GB PDF it makes as it sends — its length declared or not
/// (then the body ends when the connection closes) — counting the bytes it got to send.
fn gigabyte_pdf(declared: bool, sent: Arc<std::sync::atomic::AtomicU64>) -> Route {
    Route::Raw(Arc::new(move |_, s: &mut std::net::TcpStream| {
        use std::io::Write;
        let total: u64 = 1 << 30;
        let length = if declared {
            format!("Content-Length: {total}\r\n")
        } else {
            "Connection: close\r\n".to_owned()
        };
        write!(
            s,
            "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n{length}\r\n%PDF-1.4\n"
        )?;
        let chunk = vec![b'%'; 1 << 16];
        let mut written = 9u64;
        while written < total {
            // The crawler hangs up: the write fails and the handler ends.
            s.write_all(&chunk)?;
            written += chunk.len() as u64;
            sent.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }))
}

#[test]
fn hostile_pdfs_are_nodes_without_links_and_the_crawl_goes_on() {
    use_the_binary_as_reader();
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        "<html><body><a href=/bomb.pdf>Bomb</a> <a href=/loop.pdf>Loop</a> \
         <a href=/objects.pdf>Objects</a> <a href=/huge.pdf>Huge</a> \
         <a href=/endless.pdf>Endless</a> \
         <a href=/after.html>After</a></body></html>",
    );
    // An object stream that inflates to 2 GB, in 13 MB.
    let bomb = docs::pdf_bomb((2usize << 30) / 258);
    web.set("a.test", "/bomb.pdf", Resp::new(200, PDF, bomb));
    web.set("a.test", "/loop.pdf", Resp::new(200, PDF, docs::pdf_loop()));
    // 40 MB of one array: some twenty million objects for lopdf.
    web.set(
        "a.test",
        "/objects.pdf",
        Resp::new(200, PDF, docs::pdf_many_objects(40 << 20)),
    );
    let (declared, undeclared) = (Arc::default(), Arc::default());
    web.route(
        "a.test",
        "/huge.pdf",
        gigabyte_pdf(true, Arc::clone(&declared)),
    );
    web.route(
        "a.test",
        "/endless.pdf",
        gigabyte_pdf(false, Arc::clone(&undeclared)),
    );
    web.page(
        "a.test",
        "/after.html",
        "<html><body>Still crawling</body></html>",
    );
    let hosts = vec![format!("{};2;2;0", web.origin("a.test"))];
    let started = std::time::Instant::now();
    let c = crawl(&hosts, &[("Documents", "yes"), ("PageText", "yes")]);
    let took = started.elapsed();
    let a = folder(&c.results(), "a.test");
    let (nodes, ids) = nodes(&a);
    for p in ["/bomb.pdf", "/loop.pdf", "/objects.pdf"] {
        assert_eq!(nodes[p].1, "pdf", "{p}");
    }
    assert!(
        nodes.contains_key("/after.html"),
        "the crawl went on: {nodes:?}"
    );
    assert!(!arcs(&a, &ids).iter().any(|(f, _)| f.ends_with(".pdf")));
    let (_, bad) = read_csv(&a.join("bad_links.csv"));
    for p in ["/huge.pdf", "/endless.pdf"] {
        assert!(
            bad.iter()
                .any(|r| r[1].ends_with(p)
                    && r[2] == "document over MaxDocumentBytes (52428800 bytes)"),
            "{p}: {bad:?}"
        );
    }
    // A PDF whose head declares 1 GB is not downloaded (what was sent is what the sockets'
    // buffers took); one that declares nothing is read up to the limit, then dropped.
    let load = |n: &Arc<std::sync::atomic::AtomicU64>| n.load(std::sync::atomic::Ordering::Relaxed);
    assert!(load(&declared) < 16 << 20, "{} bytes sent", load(&declared));
    assert!(
        load(&undeclared) >= 50 << 20,
        "{} bytes sent",
        load(&undeclared)
    );
    let errors =
        std::fs::read_to_string(c.dir.path().join("logs/error_log.csv")).unwrap_or_default();
    for p in ["/bomb.pdf", "/objects.pdf", "/loop.pdf"] {
        assert!(
            errors
                .lines()
                .any(|l| l.contains(p) && l.contains("unreadable PDF")),
            "{p}: {errors}"
        );
    }
    // Bounded in time: the child's CPU limit and the parent's wait (30 s) are the most a PDF
    // costs; these take far less.
    assert!(took < std::time::Duration::from_secs(120), "{took:?}");
}

#[test]
fn the_archive_keeps_documents_whole_and_rebuild_and_compare_read_them() {
    let web = TestWeb::new();
    let hosts = doc_site(&web);
    let extra = documents(&[("PageText", "yes"), ("Archive", "warc")]);
    let dir = common::prepare(&hosts, &extra);
    let out = common::run_binary(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let before = web.server.requests().len();
    let out = common::run_binary(
        dir.path(),
        &["rebuild", "results/archive", "--out", "rebuilt"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        web.server.requests().len(),
        before,
        "a rebuild fetches nothing"
    );
    let crawled = folder(&dir.path().join("results"), "a.test");
    let rebuilt = folder(&dir.path().join("rebuilt/results"), "a.test");
    for f in [
        "nodes.csv",
        "edges.csv",
        "external_links.csv",
        "bad_links.csv",
        "text.csv",
        "graph.gexf",
    ] {
        assert_eq!(
            std::fs::read_to_string(crawled.join(f)).unwrap(),
            std::fs::read_to_string(rebuilt.join(f)).unwrap(),
            "{f}"
        );
    }
    // The crawl and its rebuild compared: the same documents, nothing changed.
    let out = common::run_binary(
        dir.path(),
        &["compare", "results", "rebuilt/results", "--out", "cmp"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, rows) = read_csv(&dir.path().join("cmp/pages.csv"));
    assert!(rows.is_empty(), "{rows:?}");
    // A document changed on the server: compare names it.
    web.set(
        "a.test",
        "/nolinks.pdf",
        Resp::new(
            200,
            PDF,
            docs::pdf(&[Page {
                lines: &["A plain document, revised"],
                links: &[],
            }]),
        ),
    );
    let again = common::prepare(&hosts, &extra);
    let out = common::run_binary(again.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = dir.path().join("results");
    let out = common::run_binary(
        again.path(),
        &[
            "compare",
            first.to_str().unwrap(),
            "results",
            "--out",
            "cmp",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (h, rows) = read_csv(&again.path().join("cmp/pages.csv"));
    let (url, change) = (
        h.iter().position(|c| c == "Url").unwrap(),
        h.iter().position(|c| c == "Change").unwrap(),
    );
    let changes: Vec<(String, String)> = rows
        .iter()
        .map(|r| (path_of(&r[url]), r[change].clone()))
        .collect();
    assert_eq!(
        changes,
        vec![("/nolinks.pdf".to_owned(), "changed".to_owned())]
    );
}

#[test]
fn a_crawl_kept_in_postgresql_has_the_same_documents_and_texts() {
    let Some(db) = common::pg::server("documents_pgdm") else {
        return;
    };
    let web = TestWeb::new();
    let hosts = doc_site(&web);
    let extra = documents(&[("PageText", "yes")]);
    let alone = common::prepare(&hosts, &extra);
    let out = common::run_binary(alone.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut with_db = extra.to_vec();
    with_db.extend([
        ("DataManager", "PgDM"),
        ("DatabaseUrl", db.url.as_str()),
        ("CrawlName", "documents"),
    ]);
    let shared = common::prepare(&hosts, &with_db);
    let out = common::run_binary(shared.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (a, b) = (
        folder(&alone.path().join("results"), "a.test"),
        folder(&shared.path().join("results"), "a.test"),
    );
    for f in ["nodes.csv", "edges.csv", "external_links.csv", "text.csv"] {
        assert_eq!(
            std::fs::read_to_string(a.join(f)).unwrap(),
            std::fs::read_to_string(b.join(f)).unwrap(),
            "{f}"
        );
    }
}

/// A site of a home page and 40 slow pages, every fourth linking a PDF of its own.
fn slow_text_site(web: &TestWeb) -> Vec<String> {
    let make = |r: &rccrawler::base::loopback::Request| -> Resp {
        let n: usize = r
            .target
            .trim_start_matches("/p")
            .trim_end_matches(".html")
            .trim_end_matches(".pdf")
            .parse()
            .unwrap_or(0);
        let mut resp = if r.target == "/" {
            let links: String = (0..40)
                .map(|n| format!("<a href=/p{n}.html>{n}</a> "))
                .collect();
            Resp::html(format!(
                "<html><title>Home</title><body><p>All pages: {links}</p></body></html>"
            ))
        } else if r.target.ends_with(".pdf") {
            let line = format!("Document number {n} of the slow site");
            Resp::new(
                200,
                PDF,
                docs::pdf(&[Page {
                    lines: &[&line],
                    links: &[],
                }]),
            )
        } else {
            let pdf = if n.is_multiple_of(4) {
                format!("<a href=/p{n}.pdf>PDF</a>")
            } else {
                String::new()
            };
            Resp::html(format!(
                "<html><title>P{n}</title><body><nav><a href=/>Home</a></nav>\
                 <p>Page {n} says something of its own, word after word.</p> {pdf}</body></html>"
            ))
        };
        resp.delay = std::time::Duration::from_millis(40);
        resp
    };
    web.route("a.test", "/", Route::Generated(Arc::new(make)));
    for n in 0..40 {
        web.route(
            "a.test",
            &format!("/p{n}.html"),
            Route::Generated(Arc::new(make)),
        );
        web.route(
            "a.test",
            &format!("/p{n}.pdf"),
            Route::Generated(Arc::new(make)),
        );
    }
    vec![format!("{};1;3;0", web.origin("a.test"))]
}

#[test]
fn text_csv_survives_a_kill_and_equals_an_uninterrupted_crawl() {
    let web = TestWeb::new();
    let hosts = slow_text_site(&web);
    let extra = [
        ("Documents", "yes"),
        ("PageText", "yes"),
        ("CheckpointSeconds", "1"),
    ];
    let reference = common::prepare(&hosts, &extra);
    let out = common::run_binary(reference.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let total = web.server.requests().len();
    let dir = common::prepare(&hosts, &extra);
    let before = web.server.requests().len();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rccrawler"))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while web.server.requests().len() < before + total / 2 {
        assert!(
            std::time::Instant::now() < until,
            "the crawl did not get half way"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = common::run_binary(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (a, b) = (
        folder(&reference.path().join("results"), "a.test"),
        folder(&dir.path().join("results"), "a.test"),
    );
    for f in ["nodes.csv", "text.csv"] {
        assert_eq!(
            std::fs::read_to_string(a.join(f)).unwrap(),
            std::fs::read_to_string(b.join(f)).unwrap(),
            "{f}"
        );
    }
    let (_, rows) = read_csv(&b.join("text.csv"));
    assert_eq!(rows.len(), 51, "40 pages, 10 PDFs and the home page");
    assert!(
        rows.iter().all(|r| r[1] != "0"),
        "every node has its text: {rows:?}"
    );
}

#[test]
fn a_reader_that_passed_its_bounds_is_started_again_for_the_next_pdf() {
    use rccrawler::crawl::parse::pdf_child::PdfReader;
    use rccrawler::formats::pdf::PdfLimits;
    use_the_binary_as_reader();
    let mut reader = PdfReader::default();
    let good = report_pdf(8080);
    let limits = PdfLimits {
        max_text_bytes: 1000,
        ..PdfLimits::default()
    };
    let first = reader.read(&good, limits).unwrap();
    assert_eq!(first.links.len(), 4);
    assert_eq!(first.pages, 2);
    let err = reader
        .read(&docs::pdf_many_objects(40 << 20), limits)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("passed its bounds (768 MB of memory)"),
        "{err}"
    );
    let truncated = reader
        .read(&good[..good.len() / 2], limits)
        .unwrap_err()
        .to_string();
    assert!(truncated.contains("truncated"), "{truncated}");
    // The same reader, a new child: the next PDF is read whole.
    let again = reader.read(&good, limits).unwrap();
    assert_eq!(again, first);
    assert!(again.text.contains("Annual report of the test university"));
}

#[test]
fn documents_count_as_pages_for_max_pages_per_site_and_the_page_budget() {
    use_the_binary_as_reader();
    let web = TestWeb::new();
    let hosts = doc_site(&web);
    let a_only = vec![hosts[0].clone()];
    // MaxPagesPerSite = 5: the home page and four of its links, documents among them.
    let c = crawl(&a_only, &documents(&[("MaxPagesPerSite", "5")]));
    let a = folder(&c.results(), "a.test");
    let (limited, _) = nodes(&a);
    assert_eq!(limited.len(), 5, "{limited:?}");
    assert!(
        limited.values().filter(|(_, t, _)| t != "html").count() >= 3,
        "{limited:?}"
    );
    let (h, rows) = read_csv(&c.results().join("summary.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    assert_eq!(rows[0][col("State")], "page limit");
    // A page budget of 6 fetches: documents are fetches like pages.
    let c = crawl(&a_only, &documents(&[("PageBudget", "6")]));
    let (h, rows) = read_csv(&c.results().join("summary.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    assert_eq!(rows[0][col("Fetched")], "6", "{rows:?}");
    let a = folder(&c.results(), "a.test");
    let (budgeted, _) = nodes(&a);
    let documents: u64 = rows[0][col("Documents")].parse().unwrap();
    assert_eq!(
        documents as usize,
        budgeted.values().filter(|(_, t, _)| t != "html").count()
    );
    assert!(documents >= 1, "{budgeted:?}");
}

#[test]
fn ctrl_c_at_the_terminal_stops_the_crawl_but_not_the_pdf_it_is_reading() {
    let web = TestWeb::new();
    // Three thousand pages of text: its reader works for a while with PageText = yes. Its
    // last page links the one page only it leads to.
    let lines: Vec<String> = (0..3000)
        .map(|i| format!("Page {i} of the long report, with a few words on it"))
        .collect();
    let mut pages: Vec<Page<'_>> = Vec::new();
    let refs: Vec<[&str; 1]> = lines.iter().map(|l| [l.as_str()]).collect();
    let last = [Annot {
        uri: "/after.html",
        contents: Some("After"),
    }];
    for (i, r) in refs.iter().enumerate() {
        let links: &[Annot<'_>] = if i + 1 == refs.len() { &last } else { &[] };
        pages.push(Page { lines: r, links });
    }
    web.page(
        "a.test",
        "/",
        "<html><body><a href=/long.pdf>Long</a></body></html>",
    );
    web.set(
        "a.test",
        "/long.pdf",
        Resp::new(200, PDF, docs::pdf(&pages)),
    );
    web.page(
        "a.test",
        "/after.html",
        "<html><body>After the report</body></html>",
    );
    let hosts = vec![format!("{};1;3;0", web.origin("a.test"))];
    let dir = common::prepare(&hosts, &[("Documents", "yes"), ("PageText", "yes")]);
    let mut child = common::spawn_in_own_group(dir.path());
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while web.hits("a.test", "/long.pdf") == 0 {
        assert!(
            std::time::Instant::now() < until,
            "the PDF was never asked for"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    common::ctrl_c_group(&child);
    let status = common::wait_exit(&mut child, std::time::Duration::from_secs(60), String::new);
    assert_eq!(status.code(), Some(0));
    // Continued: the report was read whole, its link followed.
    let out = common::run_binary(dir.path(), &[]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let a = folder(&dir.path().join("results"), "a.test");
    let (nodes, _) = nodes(&a);
    assert!(nodes.contains_key("/after.html"), "{nodes:?}");
    let errors = std::fs::read_to_string(dir.path().join("logs/error_log.csv")).unwrap_or_default();
    assert!(!errors.contains("unreadable PDF"), "{errors}");
}

#[test]
fn both_downloaders_give_the_same_documents() {
    use_the_binary_as_reader();
    let web = TestWeb::new();
    let hosts = doc_site(&web);
    let base = documents(&[("PageText", "yes")]);
    let mut dt0 = base.clone();
    dt0.push(("DownloadingThread", "DT0"));
    let (evented, blocking) = (crawl(&hosts, &base), crawl(&hosts, &dt0));
    let (a, b) = (
        folder(&evented.results(), "a.test"),
        folder(&blocking.results(), "a.test"),
    );
    for f in [
        "nodes.csv",
        "edges.csv",
        "external_links.csv",
        "bad_links.csv",
        "duplicates.csv",
        "text.csv",
    ] {
        let read = |d: &Path| {
            let (h, mut rows) = read_csv(&d.join(f));
            rows.sort();
            (h, rows)
        };
        assert_eq!(read(&a), read(&b), "{f}");
    }
}
