//! The topic stage of the domain-name filter (SPEC §6, Wen et al. 2014 formula (1)): a page
//! out of scope is kept when it is about the crawl's topic.
//!
//! Score(D) = (Σ_q ct(q)·ctWeight + tl(q)·tlWeight) · (1 + d·(matched − 1)), where ct(q) and
//! tl(q) are 1 when keyword q occurs in the page's body text or title, and matched is the
//! number of distinct keywords that occur at all (a page with none scores 0).
//!
//! Matching is case-insensitive. Keywords in scripts written without spaces between words
//! (Chinese, Japanese, Thai, Lao, Khmer, Myanmar; Korean, whose words take particles) match
//! anywhere in the text; others match whole words only, so `art` is not found in `party`.

/// `TopicFilter`'s parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSettings {
    /// `TopicKeywords`.
    pub keywords: Vec<String>,
    /// `TopicBodyWeight` (the paper's ct.weight).
    pub body_weight: f64,
    /// `TopicTitleWeight` (tl.weight).
    pub title_weight: f64,
    /// `TopicGain` (d).
    pub gain: f64,
    /// `TopicThreshold`: kept when the score is above it.
    pub threshold: f64,
}

/// A page's score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// The value of formula (1).
    pub value: f64,
    /// Distinct keywords found.
    pub matched: usize,
}

#[derive(Debug, Clone)]
struct Keyword {
    lower: String,
    anywhere: bool,
}

/// Scores pages against the topic.
#[derive(Debug, Clone)]
pub struct Topic {
    keywords: Vec<Keyword>,
    settings: TopicSettings,
}

/// Whether `c` belongs to a script written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(u32::from(c),
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FFFF  // CJK extensions B and later
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x0E00..=0x0EFF    // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1780..=0x17FF // Khmer
    )
}

impl Topic {
    /// A scorer for `settings` (empty keywords are dropped).
    pub fn new(settings: TopicSettings) -> Self {
        let keywords = settings
            .keywords
            .iter()
            .map(|k| k.trim().to_lowercase())
            .filter(|k| !k.is_empty())
            .map(|lower| Keyword {
                anywhere: lower.chars().any(unspaced),
                lower,
            })
            .collect();
        Topic { keywords, settings }
    }

    /// The threshold a score must pass.
    pub fn threshold(&self) -> f64 {
        self.settings.threshold
    }

    /// Formula (1) for a page with `title` and body text `body`.
    pub fn score(&self, title: &str, body: &str) -> Score {
        let (title, body) = (title.to_lowercase(), body.to_lowercase());
        let mut sum = 0.0;
        let mut matched = 0;
        for k in &self.keywords {
            let in_body = occurs(&body, k);
            let in_title = occurs(&title, k);
            if in_body {
                sum += self.settings.body_weight;
            }
            if in_title {
                sum += self.settings.title_weight;
            }
            if in_body || in_title {
                matched += 1;
            }
        }
        let value = if matched == 0 {
            0.0
        } else {
            sum * (1.0 + self.settings.gain * (matched as f64 - 1.0))
        };
        Score { value, matched }
    }

    /// Whether a page scoring `score` is kept.
    pub fn keeps(&self, score: Score) -> bool {
        score.value > self.settings.threshold
    }
}

/// Whether keyword `k` occurs in `text` (both lower-case).
fn occurs(text: &str, k: &Keyword) -> bool {
    if k.anywhere {
        return text.contains(&k.lower);
    }
    text.match_indices(&k.lower).any(|(at, m)| {
        let before = text[..at].chars().next_back();
        let after = text[at + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topic(keywords: &[&str], weights: (f64, f64, f64, f64)) -> Topic {
        Topic::new(TopicSettings {
            keywords: keywords.iter().map(|s| (*s).to_owned()).collect(),
            body_weight: weights.0,
            title_weight: weights.1,
            gain: weights.2,
            threshold: weights.3,
        })
    }

    /// The paper's two parameter sets: §2.1.4 (1, 3, 0.2, 8) and experiment two (0.1, 0.3,
    /// 0.2, 0.5), with experiment two's keywords.
    const FIRST: (f64, f64, f64, f64) = (1.0, 3.0, 0.2, 8.0);
    const SECOND: (f64, f64, f64, f64) = (0.1, 0.3, 0.2, 0.5);
    const KEYWORDS: [&str; 5] = ["研究生", "论文", "毕业", "体育", "篮球"];

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn chinese_pages_score_as_formula_one_says() {
        // Title: 研究生 (graduate students); body: 研究生, 论文 and 毕业, no space anywhere.
        let title = "研究生院";
        let body = "欢迎研究生提交毕业论文。";
        // Matched 3: (1+3) + 1 + 1 = 6, times 1 + 0.2 * 2 = 1.4: 8.4 > 8, kept.
        let first = topic(&KEYWORDS, FIRST);
        let s = first.score(title, body);
        assert_eq!(s.matched, 3);
        assert!(close(s.value, 8.4), "{s:?}");
        assert!(first.keeps(s));
        // The second set: (0.1+0.3) + 0.1 + 0.1 = 0.6, times 1.4: 0.84 > 0.5, kept.
        let second = topic(&KEYWORDS, SECOND);
        assert!(close(second.score(title, body).value, 0.84));
        // One keyword in the body only: 1 with the first set (rejected), 0.1 with the second
        // (rejected too); none: 0.
        let sport = "今天的体育新闻";
        assert!(close(first.score("新闻", sport).value, 1.0));
        assert!(!first.keeps(first.score("新闻", sport)));
        assert!(close(second.score("新闻", sport).value, 0.1));
        assert_eq!(first.score("新闻", "天气").value, 0.0);
    }

    #[test]
    fn russian_pages_match_whole_words_case_insensitively() {
        let t = topic(&["Университет", "наука", "спорт"], FIRST);
        // университет in the title (3), наука and спорт in the body (1 + 1): 5 × 1.4 = 7,
        // not above 8: rejected.
        let s = t.score("Университет ИТМО", "Новости: НАУКА и Спорт.");
        assert_eq!(s.matched, 3);
        assert!(close(s.value, 7.0), "{s:?}");
        assert!(!t.keeps(s));
        let words = t.score("", "спортсмены и научный отдел");
        assert_eq!(words.matched, 0, "whole words only");
        let second = topic(&["Университет", "наука", "спорт"], SECOND);
        // 0.3 + 0.1 + 0.1 = 0.5, times 1.4 = 0.7 > 0.5: kept.
        let s2 = second.score("Университет ИТМО", "Новости: НАУКА и Спорт.");
        assert!(close(s2.value, 0.7) && second.keeps(s2), "{s2:?}");
    }

    #[test]
    fn latin_keywords_need_word_boundaries() {
        let t = topic(&["art"], FIRST);
        assert_eq!(t.score("", "a party").matched, 0);
        assert_eq!(t.score("", "modern ART, today").matched, 1);
    }
}
