//! The `rccrawler` binary: the Ctrl+C handler and what the arguments ask for; everything else is in
//! the library (`rccrawler::face::cli`).

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use rccrawler::crawl::parse::pdf_child;
use rccrawler::face::cli::{self, Command, Exit};

fn main() -> ExitCode {
    if std::env::args_os().nth(1).as_deref() == Some(std::ffi::OsStr::new(pdf_child::CHILD_ARG)) {
        // A child that reads PDFs for a crawl's parsing thread (crawl::parse::pdf_child).
        return ExitCode::from(pdf_child::run_child());
    }
    if let Ok(exe) = std::env::current_exe() {
        pdf_child::use_reader(exe);
    }
    rccrawler::base::alloc_tuning::hold_mmap_threshold();
    let command = match cli::parse(std::env::args_os().skip(1)) {
        Ok(c) => c,
        Err(e) => {
            // clap's message: what is wrong, the usage line, where to read more.
            eprint!("{e}");
            return Exit::BadInput.into();
        }
    };
    // The handler is process-wide, so it lives here; the crawl only sees a channel.
    // ctrlc's `termination` feature also routes SIGTERM and SIGHUP here.
    let (tx, ctrl_c) = crossbeam_channel::bounded(1);
    let presses = AtomicUsize::new(0);
    let handler = ctrlc::set_handler(move || {
        if presses.fetch_add(1, Ordering::SeqCst) >= 1 {
            // Second press: leave now. Results and state files are written atomically, so
            // none is left half-written.
            eprintln!("second interrupt: exiting at once");
            std::process::exit(130);
        }
        let _ = tx.try_send(());
    });
    if let Err(e) = handler {
        eprintln!("warning: cannot catch Ctrl+C ({e}); use the stop file to stop");
    }
    let exit = match command {
        Command::Help(text) => {
            print!("{text}");
            Exit::Ok
        }
        Command::Version => {
            println!("rccrawler {}", env!("CARGO_PKG_VERSION"));
            Exit::Ok
        }
        Command::Crawl {
            settings,
            hosts,
            serve,
        } => cli::crawl(&settings, hosts.as_deref(), serve, ctrl_c),
        Command::Demo { settings } => rccrawler::face::demo::run(&settings, ctrl_c),
        Command::Replay(args) => cli::replay(&args),
        Command::Status { settings, serve } => cli::status(&settings, serve.as_deref(), ctrl_c),
        Command::Report { settings, results } => cli::report(&settings, results.as_deref()),
        Command::Compare { results, out } => cli::compare(&results, &out),
        Command::Rebuild(args) => cli::rebuild(&args, ctrl_c),
        Command::Network {
            settings,
            hosts,
            results,
            prospects,
            entities,
        } => cli::network(
            &settings,
            hosts.as_deref(),
            results.as_deref(),
            (prospects, entities.as_deref()),
        ),
        Command::Export {
            settings,
            to,
            scopes,
        } => cli::export(&settings, to.as_deref(), &scopes),
    };
    exit.into()
}
