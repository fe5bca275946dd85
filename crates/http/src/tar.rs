//! A tar archive written into memory, as every tar program reads it: POSIX ustar headers, and a PAX
//! extended header before a file whose path ustar cannot hold. How the pictures of a version are
//! downloaded in one file (`GET /v1/exports/{version}/icons`); the pictures are compressed already,
//! so the archive is not.

/// Where a header's fields are, by byte.
const NAME: std::ops::Range<usize> = 0..100;
const MODE: std::ops::Range<usize> = 100..108;
const UID: std::ops::Range<usize> = 108..116;
const GID: std::ops::Range<usize> = 116..124;
const SIZE: std::ops::Range<usize> = 124..136;
const MTIME: std::ops::Range<usize> = 136..148;
const CHECKSUM: std::ops::Range<usize> = 148..156;
const TYPE: usize = 156;
const MAGIC: std::ops::Range<usize> = 257..265;
const PREFIX: std::ops::Range<usize> = 345..500;

const BLOCK: usize = 512;

/// A tar archive being written: files in the order given, each with the same time.
#[derive(Debug)]
pub(crate) struct Tar {
    out: Vec<u8>,
    mtime: u64,
}

impl Tar {
    /// An empty archive whose files carry `mtime` (seconds since 1970, UTC).
    pub(crate) fn new(mtime: u64) -> Self {
        Self { out: Vec::new(), mtime }
    }

    /// Adds a regular file at `path` (relative, `/`-separated), readable by everyone.
    pub(crate) fn file(&mut self, path: &str, bytes: &[u8]) {
        let (prefix, name) = match split(path) {
            Some((prefix, name)) => (prefix, name.to_owned()),
            None => {
                // A PAX record, `<length> path=<path>\n`, whose length counts its own digits.
                let record = |length: usize| format!("{length} path={path}\n");
                let mut length = record(0).len();
                while record(length).len() != length {
                    length = record(length).len();
                }
                let pax = record(length);
                self.entry(b'x', "", &short_name(path, "PaxHeader/"), pax.as_bytes());
                ("", short_name(path, ""))
            }
        };
        self.entry(b'0', prefix, &name, bytes);
    }

    /// The archive, ended by its two empty blocks.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.out.resize(self.out.len() + 2 * BLOCK, 0);
        self.out
    }

    fn entry(&mut self, kind: u8, prefix: &str, name: &str, bytes: &[u8]) {
        let mut header = [0u8; BLOCK];
        header[NAME][..name.len()].copy_from_slice(name.as_bytes());
        octal(&mut header[MODE], 0o644);
        octal(&mut header[UID], 0);
        octal(&mut header[GID], 0);
        octal(&mut header[SIZE], bytes.len() as u64);
        octal(&mut header[MTIME], self.mtime);
        header[TYPE] = kind;
        header[MAGIC].copy_from_slice(b"ustar\x0000");
        header[PREFIX][..prefix.len()].copy_from_slice(prefix.as_bytes());
        // The checksum is of the header with its own field as spaces, written as six octal digits,
        // a NUL and a space.
        header[CHECKSUM].fill(b' ');
        let sum: u32 = header.iter().map(|&byte| u32::from(byte)).sum();
        header[CHECKSUM][..7].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        self.out.extend_from_slice(&header);
        self.out.extend_from_slice(bytes);
        self.out.resize(self.out.len().next_multiple_of(BLOCK), 0);
    }
}

/// `path` as ustar's prefix and name (at most 155 and 100 bytes, split at a `/`), if it fits.
fn split(path: &str) -> Option<(&str, &str)> {
    if path.len() <= NAME.len() {
        return Some(("", path));
    }
    path.match_indices('/')
        .map(|(at, _)| (&path[..at], &path[at + 1..]))
        .find(|(prefix, name)| prefix.len() <= PREFIX.len() && name.len() <= NAME.len() && !name.is_empty())
}

/// A name of at most 100 bytes for a file whose path is too long, under `folder`: its last bytes,
/// cut at a character's boundary, for the programs that read no PAX header.
fn short_name(path: &str, folder: &str) -> String {
    let room = NAME.len() - folder.len();
    let mut start = path.len().saturating_sub(room);
    while !path.is_char_boundary(start) {
        start += 1;
    }
    format!("{folder}{}", &path[start..])
}

/// Writes `value` into `field` as zero-padded octal digits and a NUL.
fn octal(field: &mut [u8], value: u64) {
    let digits = field.len() - 1;
    let text = format!("{value:0digits$o}");
    field[..digits].copy_from_slice(&text.as_bytes()[text.len() - digits..]);
    field[digits] = 0;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files of an archive as a reader finds them: path (the PAX one when given) and bytes,
    /// with every header's checksum checked.
    fn read(archive: &[u8]) -> Vec<(String, Vec<u8>)> {
        let field = |header: &[u8], range: std::ops::Range<usize>| {
            let bytes = &header[range];
            let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
            String::from_utf8(bytes[..end].to_vec()).unwrap()
        };
        let mut files = Vec::new();
        let (mut at, mut long_path) = (0, None);
        loop {
            let header = &archive[at..at + BLOCK];
            if header.iter().all(|&b| b == 0) {
                assert!(archive[at + BLOCK..].iter().all(|&b| b == 0));
                return files;
            }
            let mut blank = header.to_vec();
            blank[CHECKSUM].fill(b' ');
            let sum: u32 = blank.iter().map(|&b| u32::from(b)).sum();
            assert_eq!(u32::from_str_radix(&field(header, CHECKSUM), 8).unwrap(), sum);
            assert_eq!(&header[MAGIC], b"ustar\x0000");
            let size = usize::from_str_radix(&field(header, SIZE), 8).unwrap();
            let body = archive[at + BLOCK..at + BLOCK + size].to_vec();
            at += BLOCK + size.next_multiple_of(BLOCK);
            if header[TYPE] == b'x' {
                let record = String::from_utf8(body).unwrap();
                let (length, rest) = record.split_once(' ').unwrap();
                assert_eq!(length.parse::<usize>().unwrap(), record.len());
                long_path = Some(rest.strip_prefix("path=").unwrap().trim_end_matches('\n').to_owned());
                continue;
            }
            let (prefix, name) = (field(header, PREFIX), field(header, NAME));
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            files.push((long_path.take().unwrap_or(path), body));
        }
    }

    #[test]
    fn files_read_back_with_their_paths_long_or_short() {
        let long_name = format!("Sprites/{}.png", "n".repeat(150));
        let deep = format!("{}/{}.png", ["Folder"; 20].join("/"), "leaf");
        let cases: Vec<(String, Vec<u8>)> = vec![
            ("manifest.json".into(), b"{}".to_vec()),
            ("Sprites/Items/Pale Ale.png".into(), vec![7; 513]),
            (deep, vec![1; 512]),
            (long_name, vec![]),
            (format!("{}/é.png", "ü".repeat(60)), vec![2; 3]),
        ];
        let mut tar = Tar::new(1_768_867_200);
        for (path, bytes) in &cases {
            tar.file(path, bytes);
        }
        let archive = tar.finish();
        assert_eq!(archive.len() % BLOCK, 0);
        assert_eq!(read(&archive), cases);
    }

    #[test]
    fn numbers_are_octal_and_fill_their_field() {
        let mut field = [0xffu8; 12];
        octal(&mut field, 1_768_867_200);
        assert_eq!(&field, b"15133542600\0");
    }
}
