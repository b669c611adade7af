//! Decoding saved crawl state (snapshot blobs and journal records): damaged bytes must give
//! an error, never a panic or a wrong-but-accepted state that later breaks an invariant.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rccrawler::crawl::data::InMemoryDataManager;
use rccrawler::base::storage::Recovered;

fuzz_target!(|data: &[u8]| {
    // First byte chooses where the bytes go: a snapshot blob or the journal.
    let Some((&which, rest)) = data.split_first() else { return };
    let mut recovered = Recovered::default();
    if which % 2 == 0 {
        recovered.scopes.push(rest.to_vec());
    } else {
        recovered.journal = rest.to_vec();
    }
    let _ = InMemoryDataManager::check_saved_state(&recovered);
});
