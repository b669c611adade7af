//! The real web's everyday cases (SPEC §2, issue 8), on loopback: a home page that moves to
//! another origin (the site follows it), HTTPS (its own CA in `CaFile`; certificates for the
//! wrong name and expired ones), meta refresh, pages that declare no charset, canonical URLs,
//! and `OtherSchemeLinks`.
#![allow(clippy::unwrap_used)] // tests may panic on unexpected errors

mod common;

use common::tls::{Pki, Validity};
use common::{TestWeb, crawl, read_csv};
use rccrawler::base::loopback::Resp;

/// summary.csv as rows of named fields.
fn summary(c: &common::Crawled) -> Vec<std::collections::BTreeMap<String, String>> {
    let (header, rows) = read_csv(&c.results().join("summary.csv"));
    rows.into_iter()
        .map(|r| header.iter().cloned().zip(r).collect())
        .collect()
}

#[test]
fn a_home_page_that_moves_takes_the_site_with_it() {
    let web = TestWeb::new();
    let (old, new) = (web.origin("old.test"), web.origin("new.test"));
    web.set("old.test", "/", Resp::redirect(301, &format!("{new}/")));
    web.set(
        "old.test",
        "/legacy",
        Resp::redirect(301, &format!("{new}/a")),
    );
    web.page(
        "new.test",
        "/",
        &format!("<a href=/a>A</a><a href={new}/b>B</a><a href={old}/legacy>L</a>"),
    );
    web.page("new.test", "/a", "<a href=/>home</a>");
    web.page("new.test", "/b", "b");
    let c = crawl(std::slice::from_ref(&old), &[]);
    let files = c.site(&format!("old.test_{}", web.port()));
    let labels: Vec<&str> = files.nodes.iter().map(|n| n.1.as_str()).collect();
    assert_eq!(
        labels,
        [format!("{new}/"), format!("{new}/a"), format!("{new}/b")]
    );
    assert_eq!(
        files.edges,
        vec![(1, 2, 2), (1, 3, 1), (2, 1, 1)],
        "links to both origins are arcs"
    );
    assert!(files.external.is_empty(), "{:?}", files.external);
    assert_eq!(
        files.duplicates,
        vec![
            (format!("{old}/"), 1, "redirect".to_owned()),
            (format!("{old}/legacy"), 2, "redirect".to_owned())
        ]
    );
    let row = &summary(&c)[0];
    assert_eq!(
        (row["State"].as_str(), row["Home"].clone()),
        ("done", format!("{new}/"))
    );
    assert_eq!(c.report.sites[0].moved_to(), Some(new.as_str()));
    // robots.txt of the new origin came before its first other request.
    let mut requests = web.server.requests();
    requests.sort_by_key(|r| r.start);
    let new_targets: Vec<&str> = requests
        .iter()
        .filter(|r| r.host == "new.test")
        .map(|r| r.target.as_str())
        .collect();
    assert_eq!(new_targets.first(), Some(&"/robots.txt"), "{new_targets:?}");
    assert_eq!(web.hits("new.test", "/robots.txt"), 1);
}

#[test]
fn an_https_only_site_is_crawled_with_a_private_ca() {
    let pki = Pki::new("rccrawler test CA");
    let web = TestWeb::https(pki.server(&["a.test"], Validity::Good));
    web.page("a.test", "/", "<title>Secure</title><a href=/x>x</a>");
    web.page("a.test", "/x", "<a href=/>home</a>");
    let dir = tempfile::tempdir().unwrap();
    let ca = pki.write_ca(dir.path());
    let c = crawl(
        &[web.https_origin("a.test")],
        &[("CaFile", ca.to_str().unwrap())],
    );
    let files = c.site(&format!("a.test_{}", web.port()));
    assert_eq!(files.nodes.len(), 2, "{:?}", files);
    assert_eq!(files.nodes[0].1, format!("{}/", web.https_origin("a.test")));
    assert_eq!(summary(&c)[0]["State"], "done");
}

#[test]
fn an_http_seed_that_moves_to_https_and_mixed_links_within_the_site() {
    let pki = Pki::new("rccrawler test CA");
    let plain = TestWeb::new();
    let secure = TestWeb::https(pki.server(&["a.test"], Validity::Good));
    let (http, https) = (plain.origin("a.test"), secure.https_origin("a.test"));
    plain.set("a.test", "/", Resp::redirect(301, &format!("{https}/")));
    plain.page("a.test", "/plain", &format!("<a href={https}/>home</a>"));
    secure.page(
        "a.test",
        "/",
        &format!("<a href=/s>s</a><a href={http}/plain>plain</a>"),
    );
    secure.page("a.test", "/s", "s");
    let dir = tempfile::tempdir().unwrap();
    let ca = pki.write_ca(dir.path());
    let c = crawl(
        std::slice::from_ref(&http),
        &[("CaFile", ca.to_str().unwrap())],
    );
    let files = c.site(&format!("a.test_{}", plain.port()));
    let nodes: Vec<(String, u32)> = files.nodes.iter().map(|n| (n.1.clone(), n.2)).collect();
    assert_eq!(
        nodes,
        vec![
            (format!("{https}/"), 0),
            (format!("{https}/s"), 1),
            (format!("{http}/plain"), 1)
        ]
    );
    assert_eq!(files.edges, vec![(1, 2, 1), (1, 3, 1), (3, 1, 1)]);
    assert_eq!(summary(&c)[0]["Home"], format!("{https}/"));
    assert_eq!(plain.hits("a.test", "/robots.txt"), 1);
    assert_eq!(
        secure.hits("a.test", "/robots.txt"),
        1,
        "each origin's robots.txt"
    );
}

#[test]
fn certificates_for_the_wrong_name_or_expired_are_clear_bad_links() {
    let pki = Pki::new("rccrawler test CA");
    let wrong = TestWeb::https(pki.server(&["other.test"], Validity::Good));
    let expired = TestWeb::https(pki.server(&["b.test"], Validity::Expired));
    let unknown = TestWeb::https(Pki::new("some other CA").server(&["c.test"], Validity::Good));
    for (web, host) in [
        (&wrong, "a.test"),
        (&expired, "b.test"),
        (&unknown, "c.test"),
    ] {
        web.page(host, "/", "home");
    }
    let dir = tempfile::tempdir().unwrap();
    let ca = pki.write_ca(dir.path());
    let c = crawl(
        &[
            wrong.https_origin("a.test"),
            expired.https_origin("b.test"),
            unknown.https_origin("c.test"),
        ],
        &[("CaFile", ca.to_str().unwrap())],
    );
    let rows = summary(&c);
    for (row, why) in rows.iter().zip([
        "certificate not valid for this host name",
        "certificate expired",
        "certificate from an unknown issuer",
    ]) {
        assert_eq!(row["State"], "unreachable", "{row:?}");
        assert!(row["Reason"].contains(why), "{why}: {row:?}");
        let bad = c.site(&row["Folder"]).bad;
        assert!(bad[0].2.contains(why), "{bad:?}");
    }
}

#[test]
fn meta_refresh_is_a_redirect_hop_also_on_the_home_page() {
    let web = TestWeb::new();
    let refresh = |to: &str, delay: u32| {
        format!(
            r#"<html><head><meta http-equiv="refresh" content="{delay}; url={to}"></head></html>"#
        )
    };
    web.page("a.test", "/", &refresh("/ru/", 0));
    web.page(
        "a.test",
        "/ru/",
        "<a href=/ru/a>a</a><a href=/slow>slow</a><a href=/self>self</a>",
    );
    web.page("a.test", "/ru/a", "a");
    web.page("a.test", "/slow", &refresh("/ru/a", 30));
    web.page("a.test", "/self", &refresh("/self", 0));
    // A home page that refreshes to another host: the site follows it, like a redirect.
    web.page(
        "c.test",
        "/",
        &refresh(&format!("{}/", web.origin("www.a.test")), 1),
    );
    web.page("www.a.test", "/", "<a href=/w>w</a>");
    web.page("www.a.test", "/w", "w");
    let c = crawl(&[web.origin("a.test"), web.origin("c.test")], &[]);
    let a = c.site(&format!("a.test_{}", web.port()));
    let origin = web.origin("a.test");
    let labels: Vec<String> = a.nodes.iter().map(|n| n.1.clone()).collect();
    assert_eq!(
        labels,
        ["/ru/", "/ru/a", "/slow", "/self"].map(|p| format!("{origin}{p}")),
        "a refresh later than MetaRefreshMaxDelay or to itself leaves a page"
    );
    assert_eq!(
        a.duplicates,
        vec![(format!("{origin}/"), 1, "meta refresh".to_owned())]
    );
    let rows = summary(&c);
    assert_eq!(rows[1]["Home"], format!("{}/", web.origin("www.a.test")));
    assert_eq!(c.site(&format!("c.test_{}", web.port())).nodes.len(), 2);
}

/// Russian text long enough for a detector, as old university pages serve it.
const RUSSIAN: &str = "<html><head><title>Кафедра прикладной математики</title></head><body>\
    <p>Добро пожаловать на сайт кафедры. Здесь вы найдёте расписание занятий, список \
    преподавателей, новости факультета и объявления для студентов.</p>";

#[test]
fn pages_in_legacy_charsets_that_declare_none_decode_right() {
    let web = TestWeb::new();
    let encode = |label: &str, html: String| {
        let enc = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        enc.encode(&html).0.into_owned()
    };
    let home = format!(
        "{RUSSIAN}<a href=/k>Расписание занятий</a><a href=http://b.test/>Новости</a></body></html>"
    );
    let k = RUSSIAN.replace("Кафедра прикладной математики", "Расписание") + "</body></html>";
    web.set(
        "a.test",
        "/",
        Resp::new(200, "text/html", encode("windows-1251", home)),
    );
    web.set(
        "a.test",
        "/k",
        Resp::new(200, "text/html", encode("koi8-r", k)),
    );
    let c = crawl(&[web.origin("a.test")], &[]);
    let dir = c.results().join(format!("a.test_{}", web.port()));
    let (_, nodes) = read_csv(&dir.join("nodes.csv"));
    let titles: Vec<&str> = nodes.iter().map(|n| n[3].as_str()).collect();
    assert_eq!(titles, ["Кафедра прикладной математики", "Расписание"]);
    let files = c.site(&format!("a.test_{}", web.port()));
    assert_eq!(files.external[0].3, "Новости");
}

#[test]
fn canonical_urls_are_recorded_normalized_and_merge_nothing() {
    let web = TestWeb::new();
    web.page(
        "a.test",
        "/",
        r#"<link rel="canonical" href="/home?b=2&amp;a=1#top"><a href=/p>p</a>"#,
    );
    web.page(
        "a.test",
        "/p",
        "<link rel=canonical href=/>no canonical of its own",
    );
    let c = crawl(&[web.origin("a.test")], &[]);
    let dir = c.results().join(format!("a.test_{}", web.port()));
    let (header, nodes) = read_csv(&dir.join("nodes.csv"));
    assert_eq!(header.get(10).map(String::as_str), Some("Canonical"));
    let origin = web.origin("a.test");
    assert_eq!(nodes[0][10], format!("{origin}/home?a=1&b=2"));
    assert_eq!(nodes[1][10], format!("{origin}/"));
    assert_eq!(nodes.len(), 2, "a canonical URL does not merge nodes");
}

#[test]
fn other_scheme_links_are_external_or_ignored_as_settings_say() {
    let pki = Pki::new("rccrawler test CA");
    let plain = TestWeb::new();
    let secure = TestWeb::https(pki.server(&["a.test"], Validity::Good));
    let other = format!("{}/x", secure.https_origin("a.test"));
    plain.page(
        "a.test",
        "/",
        &format!("<a href={other}>x</a><a href=/p>p</a>"),
    );
    plain.page("a.test", "/p", "p");
    let dir = tempfile::tempdir().unwrap();
    let ca = pki.write_ca(dir.path());
    let ca = ca.to_str().unwrap();
    let folder = format!("a.test_{}", plain.port());
    let internal = crawl(&[plain.origin("a.test")], &[("CaFile", ca)]);
    let f = internal.site(&folder);
    assert_eq!(
        f.external.len(),
        1,
        "another port is another site: {:?}",
        f.external
    );
    let ignore = crawl(
        &[plain.origin("a.test")],
        &[("CaFile", ca), ("OtherSchemeLinks", "Ignore")],
    );
    let f = ignore.site(&folder);
    assert!(f.external.is_empty() && f.bad.is_empty(), "ignored: {f:?}");
    assert_eq!(f.edges, vec![(1, 2, 1)]);
}

#[test]
fn a_moved_site_continues_where_it_moved_after_a_stop() {
    let web = TestWeb::new();
    let new = web.origin("new.test");
    web.set("old.test", "/", Resp::redirect(301, &format!("{new}/")));
    let links: String = (0..30).map(|i| format!("<a href=/p{i}>{i}</a>")).collect();
    web.page("new.test", "/", &links);
    for i in 0..30 {
        web.set(
            "new.test",
            &format!("/p{i}"),
            Resp::html(format!(
                "<a href=/p{}>next</a><a href=http://b.test/{i}>out</a>",
                (i + 1) % 30
            ))
            .delayed(std::time::Duration::from_millis(15)),
        );
    }
    let hosts = [format!("{};1;5;0", web.origin("old.test"))];
    let folder = format!("old.test_{}", web.port());
    let whole = crawl(&hosts, &[]);
    let expected = common::result_bytes(&whole.results().join(&folder));
    let dir = common::prepare(&hosts, &[]);
    let before = web.server.requests().len();
    let first = {
        let path = dir.path().to_owned();
        std::thread::spawn(move || common::run_in(&path))
    };
    while web.server.requests().len() < before + 10 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::fs::write(dir.path().join("stop.txt"), "").unwrap();
    let stopped = first.join().unwrap();
    assert_eq!(stopped.reason, rccrawler::StopReason::StopFile);
    assert_eq!(stopped.sites[0].state.to_string(), "stopped");
    let done = common::run_in(dir.path());
    assert_eq!(done.reason, rccrawler::StopReason::WorkDone);
    let got = common::result_bytes(&dir.path().join("results").join(&folder));
    for ((name, want), (_, have)) in expected.iter().zip(&got) {
        assert!(
            want == have,
            "{name}: the continued crawl must write the uninterrupted crawl's file"
        );
    }
}
