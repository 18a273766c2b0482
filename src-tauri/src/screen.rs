//! A picture of the whole screen as PNG, for the desktop node's `screen.capture`.
//!
//! Linux/X11 only: the root window is read with the core protocol's GetImage through
//! `x11rb` (pure Rust, already in the app for the global hotkey), converted to RGB with the
//! root visual's colour masks and encoded with `png`. On a Wayland session the X server
//! (XWayland) cannot see other programs' windows, so capture is not offered there.

/// Why the screen cannot be captured here, or `None` when it can. Cheap enough to call at
/// every connection; blocking (it opens a connection to the display), so run it off the runtime.
pub fn unavailable() -> Option<String> {
    imp::unavailable()
}

/// The whole screen as PNG bytes. Blocking: call it from `spawn_blocking`.
pub fn capture_png() -> Result<Vec<u8>, String> {
    imp::capture_png()
}

/// Packed pixels as X11 sends them, read into 8-bit RGB.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[derive(Debug, Clone, Copy)]
struct PixelLayout {
    bytes_per_pixel: usize,
    little_endian: bool,
    red_mask: u32,
    green_mask: u32,
    blue_mask: u32,
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
impl PixelLayout {
    /// Appends `width` pixels of one scanline as RGB.
    fn row_to_rgb(&self, row: &[u8], width: usize, rgb: &mut Vec<u8>) {
        for pixel in row.chunks_exact(self.bytes_per_pixel).take(width) {
            let mut value: u32 = 0;
            if self.little_endian {
                for (i, byte) in pixel.iter().enumerate() {
                    value |= u32::from(*byte) << (8 * i);
                }
            } else {
                for byte in pixel {
                    value = (value << 8) | u32::from(*byte);
                }
            }
            rgb.push(channel(value, self.red_mask));
            rgb.push(channel(value, self.green_mask));
            rgb.push(channel(value, self.blue_mask));
        }
    }
}

#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
/// One colour channel scaled to 0-255, whatever its width in the pixel (5, 6, 8, 10 bits).
fn channel(value: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let bits = mask.count_ones();
    let raw = u64::from((value & mask) >> mask.trailing_zeros());
    let max = (1u64 << bits) - 1;
    u8::try_from(raw * 255 / max).unwrap_or(u8::MAX)
}

/// RGB rows as a PNG file (fast compression: a screen is large and this is waited on).
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn encode_png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, String> {
    let fail =
        |e: &dyn std::fmt::Display| format!("The screenshot could not be saved as PNG ({e}).");
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
        writer.write_image_data(rgb).map_err(|e| fail(&e))?;
        writer.finish().map_err(|e| fail(&e))?;
    }
    Ok(out)
}

#[cfg(target_os = "linux")]
mod imp {
    use x11rb::connection::Connection;
    use x11rb::protocol::xproto::{ConnectionExt, ImageFormat, ImageOrder};

    use super::{PixelLayout, encode_png};

    /// Each GetImage asks for at most this many bytes, so a large screen is read in strips.
    const STRIP_BYTES: usize = 4 * 1024 * 1024;

    fn wayland_session() -> bool {
        std::env::var("XDG_SESSION_TYPE").is_ok_and(|t| t.eq_ignore_ascii_case("wayland"))
            || std::env::var_os("WAYLAND_DISPLAY").is_some_and(|d| !d.is_empty())
    }

    pub fn unavailable() -> Option<String> {
        if wayland_session() {
            return Some(
                "Screen capture works on X11 desktops; this is a Wayland session.".to_owned(),
            );
        }
        match x11rb::connect(None) {
            Ok(_) => None,
            Err(e) => Some(format!("There is no screen to capture here ({e}).")),
        }
    }

    pub fn capture_png() -> Result<Vec<u8>, String> {
        let (conn, screen_num) = x11rb::connect(None)
            .map_err(|e| format!("Sentient could not reach the screen ({e})."))?;
        let setup = conn.setup();
        let screen = setup
            .roots
            .get(screen_num)
            .ok_or_else(|| "The display has no screen to capture.".to_owned())?;
        let (width, height) = (screen.width_in_pixels, screen.height_in_pixels);
        let visual = screen
            .allowed_depths
            .iter()
            .flat_map(|d| d.visuals.iter())
            .find(|v| v.visual_id == screen.root_visual)
            .ok_or_else(|| "The screen's colour format is unknown.".to_owned())?;
        let format = setup
            .pixmap_formats
            .iter()
            .find(|f| f.depth == screen.root_depth)
            .ok_or_else(|| "The screen's pixel format is unknown.".to_owned())?;
        let bits = usize::from(format.bits_per_pixel);
        if !matches!(bits, 16 | 24 | 32) || visual.red_mask == 0 {
            return Err(format!(
                "Screens with {} colour bits per pixel can't be captured yet.",
                format.bits_per_pixel
            ));
        }
        let layout = PixelLayout {
            bytes_per_pixel: bits / 8,
            little_endian: setup.image_byte_order == ImageOrder::LSB_FIRST,
            red_mask: visual.red_mask,
            green_mask: visual.green_mask,
            blue_mask: visual.blue_mask,
        };
        let pad = usize::from(format.scanline_pad.max(8));
        let stride = (usize::from(width) * bits).div_ceil(pad) * pad / 8;
        let rows_per_strip = (STRIP_BYTES / stride.max(1)).clamp(1, usize::from(height.max(1)));

        let mut rgb = Vec::with_capacity(usize::from(width) * usize::from(height) * 3);
        let mut y: u16 = 0;
        while y < height {
            let rows = u16::try_from(rows_per_strip)
                .unwrap_or(u16::MAX)
                .min(height - y);
            let top = i16::try_from(y).map_err(|_| "The screen is too tall.".to_owned())?;
            let reply = conn
                .get_image(ImageFormat::Z_PIXMAP, screen.root, 0, top, width, rows, !0)
                .map_err(|e| format!("Sentient could not read the screen ({e})."))?
                .reply()
                .map_err(|e| format!("The screen could not be read ({e})."))?;
            let expected = stride * usize::from(rows);
            if reply.data.len() < expected {
                return Err("The screen sent less than a full picture.".to_owned());
            }
            for row in reply.data.chunks_exact(stride).take(usize::from(rows)) {
                layout.row_to_rgb(row, usize::from(width), &mut rgb);
            }
            y += rows;
        }
        encode_png(u32::from(width), u32::from(height), &rgb)
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn unavailable() -> Option<String> {
        Some("Screen capture is available on Linux desktops for now.".to_owned())
    }

    pub fn capture_png() -> Result<Vec<u8>, String> {
        Err(unavailable().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_scale_to_eight_bits() {
        assert_eq!(channel(0x00ff_0000, 0x00ff_0000), 255);
        assert_eq!(channel(0x0080_0000, 0x00ff_0000), 128);
        // 5-6-5: full red, half green, no blue.
        assert_eq!(channel(0xf800, 0xf800), 255);
        assert_eq!(channel(0x03e0, 0x07e0), 125);
        assert_eq!(channel(0x001f, 0x0000), 0);
    }

    #[test]
    fn rows_follow_byte_order_and_masks() {
        // Xvfb and most X servers: 32 bits per pixel, BGRX in memory (little endian).
        let layout = PixelLayout {
            bytes_per_pixel: 4,
            little_endian: true,
            red_mask: 0x00ff_0000,
            green_mask: 0x0000_ff00,
            blue_mask: 0x0000_00ff,
        };
        let mut rgb = Vec::new();
        // Two pixels and two bytes of scanline padding the width leaves out.
        layout.row_to_rgb(
            &[0x30, 0x20, 0x10, 0, 0xff, 0x00, 0x80, 0, 9, 9],
            2,
            &mut rgb,
        );
        assert_eq!(rgb, [0x10, 0x20, 0x30, 0x80, 0x00, 0xff]);

        let big = PixelLayout {
            little_endian: false,
            bytes_per_pixel: 3,
            ..layout
        };
        let mut rgb = Vec::new();
        big.row_to_rgb(&[0x10, 0x20, 0x30], 1, &mut rgb);
        assert_eq!(rgb, [0x10, 0x20, 0x30]);
    }

    #[test]
    fn the_png_decodes_to_the_same_pixels() {
        let rgb: Vec<u8> = (0..4 * 3 * 3).map(|i| (i * 7) as u8).collect();
        let png_bytes = encode_png(4, 3, &rgb).expect("png");
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().expect("header");
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).expect("frame");
        assert_eq!((info.width, info.height), (4, 3));
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(&pixels[..info.buffer_size()], rgb.as_slice());
    }
}
