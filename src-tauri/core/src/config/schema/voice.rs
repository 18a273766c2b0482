//! Settings section `voice`.

use super::*;

/// Which engine turns your speech into text.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SttProvider {
    /// Whisper running on this computer, with nothing sent online.
    #[default]
    FasterWhisper,
    /// OpenAI's online speech recognition, which needs a key.
    Openai,
    /// Deepgram's online speech recognition, which needs a key.
    Deepgram,
    /// ElevenLabs' online speech recognition, which needs a key.
    Elevenlabs,
}

/// Where speech recognition on this computer runs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum SttDevice {
    /// Small models on the processor, keeping the graphics card free; large ones try the graphics card first.
    #[default]
    Auto,
    /// Always the processor.
    Cpu,
    /// Always the NVIDIA graphics card.
    Cuda,
}

/// Which engine speaks replies aloud.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum TtsProvider {
    /// This computer's own voices, with no download.
    #[default]
    System,
    /// Kokoro, a natural-sounding voice that runs on this computer after a download.
    Kokoro,
    /// OpenAI's online voices, which need a key.
    Openai,
    /// ElevenLabs' online voices, which need a key.
    Elevenlabs,
}

/// Size and precision of the Kokoro voice model.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum KokoroVariant {
    /// The smallest download (88 MB), but about four times slower.
    Int8,
    /// A middle size, best on graphics cards.
    Fp16,
    /// The largest download (310 MB) and the fastest on a processor.
    #[default]
    Fp32,
}

/// How the wake word is heard.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum WakeEngine {
    /// A tiny speech model that understands any phrase.
    #[default]
    Whisper,
    /// A lighter always-on listener for a few ready-made phrases or your own model.
    Openwakeword,
}

/// The small speech model that listens for the wake word.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
pub enum WakeWhisperModel {
    /// The smallest model, for any language.
    #[serde(rename = "tiny")]
    Tiny,
    /// The smallest model, English only.
    #[serde(rename = "tiny.en")]
    TinyEn,
    /// A small model for any language, much better than tiny at hearing the greeting.
    #[default]
    #[serde(rename = "base")]
    Base,
    /// A small model, English only.
    #[serde(rename = "base.en")]
    BaseEn,
}

/// How dictated text is cleaned up before it is typed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum DictationCleanup {
    /// Exactly what was heard.
    Raw,
    /// Remove filler sounds, fix spacing and add capitals and full stops, without a model.
    #[default]
    Tidy,
    /// Tidy, then let the quick model fix punctuation without changing any words.
    Polish,
}

/// Push to talk and dictation into any app.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct DictationConfig {
    /// How dictated text is cleaned up before it is typed.
    pub cleanup: DictationCleanup,
    /// The language you dictate in, as a short code; empty follows the speech recognition language.
    pub language: String,
}

impl Default for DictationConfig {
    fn default() -> Self {
        Self {
            cleanup: DictationCleanup::Tidy,
            language: String::new(),
        }
    }
}

/// Talking to Sentient: speech recognition, spoken replies and the wake word.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, specta::Type)]
#[serde(default)]
pub struct VoiceConfig {
    /// Let you talk to Sentient and hear its replies spoken aloud.
    pub enabled: bool,
    /// Which engine turns your speech into text.
    pub stt_provider: SttProvider,
    /// The speech recognition model: tiny, base, small, medium or large-v3 on this computer, or an online model name.
    pub stt_model: String,
    /// Where speech recognition on this computer runs.
    pub stt_device: SttDevice,
    /// The language you speak, as a short code; empty follows the reply language and auto detects it.
    pub stt_language: String,
    /// Which engine speaks replies aloud.
    pub tts_provider: TtsProvider,
    /// The voice used for spoken replies (empty uses the engine's default voice).
    pub tts_voice: String,
    /// How fast replies are spoken, where 1 is normal speed.
    #[schemars(range(min = 0.5, max = 2.0))]
    pub tts_speed: f64,
    /// The online voice model name (empty uses the provider's usual one).
    pub tts_model: String,
    /// Size and precision of the Kokoro voice model.
    pub kokoro_variant: KokoroVariant,
    /// Milliseconds of silence that end what you are saying.
    #[schemars(range(min = 200, max = 3000))]
    pub vad_silence_ms: u32,
    /// Sounds shorter than this many milliseconds, such as coughs and clicks, are ignored.
    #[schemars(range(min = 50, max = 2000))]
    pub vad_min_speech_ms: u32,
    /// Seconds after which a long stretch of speech is cut off and answered.
    #[schemars(range(min = 3.0, max = 120.0))]
    pub vad_max_utterance_s: f64,
    /// Talking while Sentient speaks interrupts it (works best with headphones).
    pub barge_in: bool,
    /// Start speaking the first part of a reply once it is this many characters long (0 waits for the whole first sentence).
    #[schemars(range(max = 240))]
    pub tts_first_clause_chars: u32,
    /// Load the speech models when Sentient starts, so the first spoken reply is quicker but memory is used even if you never talk.
    pub preload_on_start: bool,
    /// The phrase that wakes hands-free voice, such as on smart glasses or in talk mode.
    pub wake_word: String,
    /// How the wake word is heard.
    pub wake_engine: WakeEngine,
    /// How easily the wake word triggers, from 0 to 1; higher also wakes by mistake more often.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub wake_sensitivity: f64,
    /// For the lighter listener: a ready-made phrase model or the path of your own model file (empty derives it from the wake word).
    pub wake_model: String,
    /// The small speech model that listens for the wake word.
    pub wake_whisper_model: WakeWhisperModel,
    /// Play a short chime when the wake word is heard.
    pub wake_earcon: bool,
    /// Seconds after a spoken reply during which you can carry on without the wake word.
    #[schemars(range(min = 0.0, max = 120.0))]
    pub follow_up_seconds: f64,
    /// Push to talk and dictation into any app.
    pub dictation: DictationConfig,
}

impl Default for VoiceConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            stt_provider: SttProvider::FasterWhisper,
            stt_model: "base".to_owned(),
            stt_device: SttDevice::Auto,
            stt_language: String::new(),
            tts_provider: TtsProvider::System,
            tts_voice: String::new(),
            tts_speed: 1.0,
            tts_model: String::new(),
            kokoro_variant: KokoroVariant::Fp32,
            vad_silence_ms: 700,
            vad_min_speech_ms: 250,
            vad_max_utterance_s: 30.0,
            barge_in: true,
            tts_first_clause_chars: 40,
            preload_on_start: false,
            wake_word: "hey sentient".to_owned(),
            wake_engine: WakeEngine::Whisper,
            wake_sensitivity: 0.5,
            wake_model: String::new(),
            wake_whisper_model: WakeWhisperModel::Base,
            wake_earcon: true,
            follow_up_seconds: 8.0,
            dictation: DictationConfig::default(),
        }
    }
}
