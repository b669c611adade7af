//! Lines sorted in bounded memory: runs of at most [`RUN_BYTES`] sorted in memory and spilled
//! to unnamed temporary files, then merged. An archive's index of ten million answers (about
//! 2.5 GB of lines) is sorted with a few megabytes, not all of them at once.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Seek, Write};
use std::path::Path;

/// The bytes of lines a run holds before it is sorted and spilled.
pub const RUN_BYTES: usize = 8 << 20;

/// Lines pushed in any order, given back sorted (byte order, as `str` orders them).
#[derive(Debug)]
pub struct LineSorter {
    dir: std::path::PathBuf,
    run: Vec<String>,
    run_bytes: usize,
    run_limit: usize,
    spilled: Vec<File>,
}

impl LineSorter {
    /// A sorter whose spilled runs go to unnamed files in `dir` (nothing is left there after
    /// a crash).
    pub fn new(dir: &Path) -> LineSorter {
        LineSorter::with_run_bytes(dir, RUN_BYTES)
    }

    /// [`Self::new`] with runs of `run_bytes` (tests spill small inputs with it).
    pub fn with_run_bytes(dir: &Path, run_bytes: usize) -> LineSorter {
        LineSorter {
            dir: dir.to_owned(),
            run: Vec::new(),
            run_bytes: 0,
            run_limit: run_bytes.max(1),
            spilled: Vec::new(),
        }
    }

    /// Adds a line (without its line end).
    pub fn push(&mut self, line: String) -> io::Result<()> {
        self.run_bytes += line.len() + std::mem::size_of::<String>();
        self.run.push(line);
        if self.run_bytes >= self.run_limit {
            self.spill()?;
        }
        Ok(())
    }

    fn spill(&mut self) -> io::Result<()> {
        self.run.sort_unstable();
        let mut out = BufWriter::with_capacity(1 << 16, tempfile::tempfile_in(&self.dir)?);
        for l in self.run.drain(..) {
            out.write_all(l.as_bytes())?;
            out.write_all(b"\n")?;
        }
        let mut file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.rewind()?;
        self.spilled.push(file);
        self.run = Vec::new();
        self.run_bytes = 0;
        Ok(())
    }

    /// Writes every line, sorted, each ended by `\n`, to `out`.
    pub fn write_sorted(mut self, out: &mut impl Write) -> io::Result<()> {
        if self.spilled.is_empty() {
            self.run.sort_unstable();
            for l in &self.run {
                out.write_all(l.as_bytes())?;
                out.write_all(b"\n")?;
            }
            return Ok(());
        }
        if !self.run.is_empty() {
            self.spill()?;
        }
        let mut readers: Vec<BufReader<File>> = self
            .spilled
            .drain(..)
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .collect();
        // The smallest head first; equal lines in run order (the merge is stable).
        let mut heads = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(l) = next_line(r)? {
                heads.push(Reverse((l, i)));
            }
        }
        while let Some(Reverse((line, i))) = heads.pop() {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
            if let Some(l) = next_line(&mut readers[i])? {
                heads.push(Reverse((l, i)));
            }
        }
        Ok(())
    }
}

fn next_line(r: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut l = String::new();
    if r.read_line(&mut l)? == 0 {
        return Ok(None);
    }
    if l.ends_with('\n') {
        l.pop();
    }
    Ok(Some(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(lines: &[&str], run_bytes: usize) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut s = LineSorter::with_run_bytes(dir.path(), run_bytes);
        for l in lines {
            s.push((*l).to_owned()).unwrap();
        }
        let mut out = Vec::new();
        s.write_sorted(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn spilled_runs_merge_to_what_one_sort_gives() {
        let lines: Vec<String> = (0..1000u32)
            .map(|i| format!("k{:05} {}", (i * 7919) % 1000, i % 3))
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let mut expected = lines.clone();
        expected.sort();
        let expected: String = expected.iter().map(|l| format!("{l}\n")).collect();
        // One run, a run every line, and runs of about 40 lines.
        assert_eq!(sorted(&refs, usize::MAX), expected);
        assert_eq!(sorted(&refs, 1), expected);
        assert_eq!(sorted(&refs, 40 * 40), expected);
    }

    #[test]
    fn nothing_sorts_to_nothing_and_empty_lines_are_kept() {
        assert_eq!(sorted(&[], 1), "");
        assert_eq!(sorted(&["b", "", "a"], 1), "\na\nb\n");
    }
}
