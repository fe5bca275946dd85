//! One picture's pixels: a dataset's PNG checked and decoded within the importer's bounds, fitted
//! into the square sizes Tapster serves, and written as PNG or lossless WebP. Pure work on bytes;
//! where the results are kept is `pictures`' business.

use std::io::Cursor;

use png::{BitDepth, ColorType, Transformations};

/// The largest picture file an import takes, in bytes (docs/data-format.md, "Pictures").
pub const MAX_PICTURE_BYTES: usize = 256 * 1024;
/// The widest and tallest picture an import takes, in pixels.
pub const MAX_PICTURE_SIDE: u32 = 512;

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Pixels as 8-bit RGBA, row after row, alpha not premultiplied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rgba {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) pixels: Vec<u8>,
}

/// Decodes a picture file, or says in a few words why an import refuses it: too large, not a PNG,
/// damaged, or wider or taller than the bound. The decoder's own allocations are bounded too, so
/// that a small file claiming huge dimensions costs nothing.
pub(crate) fn decode(bytes: &[u8]) -> Result<Rgba, String> {
    if bytes.len() > MAX_PICTURE_BYTES {
        return Err(format!(
            "is {} KiB; a picture may be at most {} KiB",
            bytes.len().div_ceil(1024),
            MAX_PICTURE_BYTES / 1024
        ));
    }
    if !bytes.starts_with(PNG_SIGNATURE) {
        return Err("is not a PNG file (it does not start with PNG's signature)".into());
    }
    let damaged = |e: png::DecodingError| format!("is not a readable PNG: {e}");
    let limits = png::Limits { bytes: 4 * (MAX_PICTURE_SIDE as usize).pow(2) * 4 };
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
    decoder.set_transformations(Transformations::EXPAND | Transformations::STRIP_16 | Transformations::ALPHA);
    let header = decoder.read_header_info().map_err(damaged)?;
    let (width, height) = (header.width, header.height);
    if width > MAX_PICTURE_SIDE || height > MAX_PICTURE_SIDE {
        return Err(format!(
            "is {width}x{height} pixels; a picture may be at most {MAX_PICTURE_SIDE} pixels wide and tall"
        ));
    }
    let mut reader = decoder.read_info().map_err(damaged)?;
    let size = reader.output_buffer_size().ok_or("is too large to decode")?;
    let mut buffer = vec![0; size];
    let frame = reader.next_frame(&mut buffer).map_err(damaged)?;
    buffer.truncate(frame.buffer_size());
    // The rest of the file too: a picture cut after its image data is as damaged as one cut within.
    reader.finish().map_err(damaged)?;
    let pixels = match (frame.color_type, frame.bit_depth) {
        (ColorType::Rgba, BitDepth::Eight) => buffer,
        (ColorType::GrayscaleAlpha, BitDepth::Eight) => {
            buffer.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect()
        }
        // `ALPHA` gives every other colour type an alpha channel, and `STRIP_16` 8-bit samples.
        (color, depth) => {
            return Err(format!("decodes to {color:?} at {depth:?}, which Tapster cannot read"));
        }
    };
    Ok(Rgba { width, height, pixels })
}

/// Whether `bytes` is a PNG of exactly `side` pixels square, read from its header alone (the file has
/// been decoded whole by [`decode`] already): such a file is served as it is at that size.
pub(crate) fn is_square_png_of(bytes: &[u8], side: u32) -> bool {
    // The IHDR chunk comes first: its length and type (8 bytes), then width and height, big-endian.
    let dimension = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    bytes.starts_with(PNG_SIGNATURE)
        && bytes.get(12..16) == Some(b"IHDR")
        && dimension(16) == Some(side)
        && dimension(20) == Some(side)
}

/// `image` fitted into a square of `side` pixels: scaled so that its longer side fills the square
/// (the aspect kept, the rest transparent, the picture centred), each new pixel the average of the
/// area of the old ones it covers, weighted by their opacity so that transparent pixels lend no
/// colour to the edges. Enlarging a small picture by a whole factor repeats its pixels, as pixel art
/// wants; by another factor, the pixels on a boundary are blended.
pub(crate) fn fit(image: &Rgba, side: u32) -> Rgba {
    let longer = f64::from(image.width.max(image.height));
    let scaled = |length: u32| ((f64::from(length) * f64::from(side) / longer).round() as u32).clamp(1, side);
    let (width, height) = (scaled(image.width), scaled(image.height));
    let (left, top) = ((side - width) / 2, (side - height) / 2);
    let columns = coverage(image.width, width);
    let rows = coverage(image.height, height);
    let mut pixels = vec![0; (side * side * 4) as usize];
    for (y, row) in rows.iter().enumerate() {
        for (x, column) in columns.iter().enumerate() {
            let mut sum = [0.0f64; 4];
            for &(source_y, weight_y) in row {
                for &(source_x, weight_x) in column {
                    let at = ((source_y * image.width + source_x) * 4) as usize;
                    let pixel = &image.pixels[at..at + 4];
                    let weight = weight_x * weight_y * f64::from(pixel[3]) / 255.0;
                    for channel in 0..3 {
                        sum[channel] += f64::from(pixel[channel]) * weight;
                    }
                    sum[3] += weight;
                }
            }
            let at = (((top + y as u32) * side + left + x as u32) * 4) as usize;
            if sum[3] > 0.0 {
                for channel in 0..3 {
                    pixels[at + channel] = (sum[channel] / sum[3]).round().clamp(0.0, 255.0) as u8;
                }
                pixels[at + 3] = (sum[3] * 255.0).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    Rgba { width: side, height: side, pixels }
}

/// For each of `to` new pixels along one axis, the old pixels (of `from`) it covers and what share
/// of it each one makes; the shares of one new pixel add up to 1.
fn coverage(from: u32, to: u32) -> Vec<Vec<(u32, f64)>> {
    let ratio = f64::from(from) / f64::from(to);
    (0..to)
        .map(|new| {
            let (start, end) = (f64::from(new) * ratio, f64::from(new + 1) * ratio);
            (start.floor() as u32..(end.ceil() as u32).min(from))
                .filter_map(|old| {
                    let covered = end.min(f64::from(old + 1)) - start.max(f64::from(old));
                    (covered > 0.0).then_some((old, covered / ratio))
                })
                .collect()
        })
        .collect()
}

/// `image` as a PNG: indexed when it has at most 256 colours (as icons mostly do, and then a
/// third of the size), otherwise RGBA; compressed hard, since it is made once and sent often.
pub(crate) fn encode_png(image: &Rgba) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, image.width, image.height);
    encoder.set_depth(BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let data = match palette(&image.pixels) {
        Some((colours, indexes)) => {
            encoder.set_color(ColorType::Indexed);
            encoder.set_palette(colours.iter().flat_map(|c| [c[0], c[1], c[2]]).collect::<Vec<u8>>());
            encoder.set_trns(colours.iter().map(|c| c[3]).collect::<Vec<u8>>());
            indexes
        }
        None => {
            encoder.set_color(ColorType::Rgba);
            image.pixels.clone()
        }
    };
    // Writing into memory fails only on dimensions that do not fit the data, which `Rgba` rules out;
    // should it fail all the same, nothing half-written is kept.
    let mut writer = encoder.write_header().map_err(|e| format!("writing a PNG: {e}"))?;
    writer.write_image_data(&data).map_err(|e| format!("writing a PNG: {e}"))?;
    writer.finish().map_err(|e| format!("writing a PNG: {e}"))?;
    Ok(out)
}

/// The colours of `pixels` in order of first appearance, and each pixel's index among them, when
/// there are at most 256; fully transparent pixels are one colour whatever their RGB.
fn palette(pixels: &[u8]) -> Option<(Vec<[u8; 4]>, Vec<u8>)> {
    let mut colours: Vec<[u8; 4]> = Vec::new();
    let mut known = std::collections::HashMap::new();
    let mut indexes = Vec::with_capacity(pixels.len() / 4);
    for pixel in pixels.chunks_exact(4) {
        let colour = if pixel[3] == 0 { [0; 4] } else { [pixel[0], pixel[1], pixel[2], pixel[3]] };
        let index = match known.get(&colour) {
            Some(&index) => index,
            None => {
                let index = u8::try_from(colours.len()).ok()?;
                known.insert(colour, index);
                colours.push(colour);
                index
            }
        };
        indexes.push(index);
    }
    Some((colours, indexes))
}

/// `image` as a lossless WebP.
pub(crate) fn encode_webp(image: &Rgba) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    image_webp::WebPEncoder::new(&mut out)
        .encode(&image.pixels, image.width, image.height, image_webp::ColorType::Rgba8)
        .map_err(|e| format!("writing a WebP: {e}"))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture of `width` by `height` whose pixel at (x, y) is `colour(x, y)`.
    fn image(width: u32, height: u32, colour: impl Fn(u32, u32) -> [u8; 4]) -> Rgba {
        let pixels = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .flat_map(|(x, y)| colour(x, y))
            .collect();
        Rgba { width, height, pixels }
    }

    #[test]
    fn a_written_png_decodes_to_the_same_pixels_indexed_or_not() {
        let few = image(16, 8, |x, y| if (x + y) % 2 == 0 { [200, 30, 30, 255] } else { [0, 0, 0, 0] });
        let many = image(32, 32, |x, y| [x as u8 * 7, y as u8 * 7, (x * y) as u8, 255]);
        for picture in [few, many] {
            let bytes = encode_png(&picture).unwrap();
            assert_eq!(decode(&bytes).unwrap(), picture);
        }
    }

    #[test]
    fn the_indexed_form_is_chosen_when_the_colours_fit() {
        let flat = image(64, 64, |x, _| if x < 32 { [10, 20, 30, 255] } else { [0, 0, 0, 0] });
        let bytes = encode_png(&flat).unwrap();
        // The IHDR's colour type byte: 3 is indexed.
        assert_eq!(bytes[25], 3);
    }

    #[test]
    fn a_written_webp_decodes_to_the_same_pixels() {
        let picture = image(32, 32, |x, y| [x as u8 * 8, 255 - y as u8 * 8, 90, if x > 3 { 255 } else { 0 }]);
        let bytes = encode_webp(&picture).unwrap();
        let mut decoder = image_webp::WebPDecoder::new(Cursor::new(&bytes)).unwrap();
        assert_eq!(decoder.dimensions(), (32, 32));
        let mut pixels = vec![0; decoder.output_buffer_size().unwrap()];
        decoder.read_image(&mut pixels).unwrap();
        // Lossless: every visible pixel as it was (a decoder may give invisible ones any colour).
        for (got, want) in pixels.chunks_exact(4).zip(picture.pixels.chunks_exact(4)) {
            assert_eq!(got[3], want[3]);
            if want[3] > 0 {
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn fitting_averages_areas_and_keeps_the_aspect() {
        // Four quadrants of four colours, halved: each new pixel is one old colour's average.
        let quadrants = image(4, 4, |x, y| match (x < 2, y < 2) {
            (true, true) => [255, 0, 0, 255],
            (false, true) => [0, 255, 0, 255],
            (true, false) => [0, 0, 255, 255],
            (false, false) => [0, 0, 0, 0],
        });
        let half = fit(&quadrants, 2);
        assert_eq!(half.pixels, [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 0]);
        // An opaque pixel beside a transparent one keeps its colour, at half the opacity.
        let edge = image(2, 1, |x, _| if x == 0 { [100, 50, 0, 255] } else { [255, 255, 255, 0] });
        let one = fit(&edge, 1);
        assert_eq!(one.pixels, [100, 50, 0, 128]);
        // A wide picture fills the square's width and is centred in its height.
        let wide = image(8, 4, |_, _| [1, 2, 3, 255]);
        let square = fit(&wide, 4);
        let alpha: Vec<u8> = square.pixels.chunks_exact(4).map(|p| p[3]).collect();
        assert_eq!(alpha, [0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0]);
        // Enlarging repeats pixels.
        let dot = image(1, 1, |_, _| [9, 8, 7, 255]);
        assert!(fit(&dot, 3).pixels.chunks_exact(4).all(|p| p == [9, 8, 7, 255]));
    }

    #[test]
    fn files_beyond_the_bounds_or_not_png_are_refused_with_the_reason() {
        let huge = vec![0; MAX_PICTURE_BYTES + 1];
        assert!(decode(&huge).unwrap_err().contains("at most 256 KiB"));
        assert!(decode(b"GIF89a....").unwrap_err().contains("not a PNG"));
        let wide = encode_png(&image(MAX_PICTURE_SIDE + 1, 1, |_, _| [0, 0, 0, 255])).unwrap();
        assert!(decode(&wide).unwrap_err().contains("513x1 pixels"), "{:?}", decode(&wide));
        let whole = encode_png(&image(8, 8, |x, _| [x as u8, 0, 0, 255])).unwrap();
        let cut = &whole[..whole.len() - 20];
        assert!(decode(cut).unwrap_err().contains("not a readable PNG"), "{:?}", decode(cut));
        let mut flipped = whole.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x55;
        assert!(decode(&flipped).is_err());
    }

    #[test]
    fn a_square_png_is_recognised_by_its_header() {
        let bytes = encode_png(&image(8, 8, |_, _| [1, 1, 1, 255])).unwrap();
        assert!(is_square_png_of(&bytes, 8));
        assert!(!is_square_png_of(&bytes, 16));
        assert!(!is_square_png_of(&encode_png(&image(8, 4, |_, _| [1, 1, 1, 255])).unwrap(), 8));
    }
}
