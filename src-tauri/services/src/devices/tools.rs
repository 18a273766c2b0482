//! The `devices` app (contract section 13): photos, screenshots, location, notifications,
//! text and speech on the person's paired devices. Each tool is offered only while an online
//! device can do what it does (the desktop app counts only for screen captures).

use std::sync::Arc;

use base64::Engine as _;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::config::ConfigService;
use crate::devices::model::{InvokeReply, Node, counts_for};
use crate::devices::{Devices, Presence};
use crate::llm::LlmService;
use crate::tools::{
    CallDescription, Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, parse_args,
};

/// What the device tools work with: the devices service, the settings and the model layer (the
/// vision role describes pictures).
#[derive(Clone)]
pub struct DeviceToolDeps {
    pub devices: Arc<Devices>,
    pub config: ConfigService,
    pub llm: LlmService,
}

pub fn plugin(deps: DeviceToolDeps) -> Plugin {
    let presence = deps.devices.presence();
    let tool = |kind: Kind| -> Arc<dyn Tool> {
        Arc::new(DeviceTool {
            def: kind.def(),
            kind,
            presence: presence.clone(),
            deps: deps.clone(),
        })
    };
    Plugin {
        id: "devices".to_owned(),
        display_name: "Devices".to_owned(),
        description: "Your paired phone, glasses and other devices: photos, location, notifications and speech.".to_owned(),
        category: "built_in".to_owned(),
        icon: "devices".to_owned(),
        auth: "none".to_owned(),
        selection_hint: "phone glasses device photo picture camera see look screen screenshot location where am i notify notification remind display show say speak".to_owned(),
        scoped: false,
        tools: vec![
            tool(Kind::List),
            tool(Kind::Photo),
            tool(Kind::Screen),
            tool(Kind::Location),
            tool(Kind::Notify),
            tool(Kind::Display),
            tool(Kind::Speak),
        ],
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Photo,
    Screen,
    Location,
    Notify,
    Display,
    Speak,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookArgs {
    /// The device's name or id; leave it empty for the first online device that can.
    #[serde(default)]
    pub device: String,
    /// What to find out from the picture, if anything.
    #[serde(default)]
    pub question: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeviceArgs {
    /// The device's name or id; leave it empty for the first online device that can.
    #[serde(default)]
    pub device: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TextArgs {
    /// What to show or say.
    pub text: String,
    /// The device's name or id; leave it empty for the first online device that can.
    #[serde(default)]
    pub device: String,
}

impl Kind {
    /// The capability the tool uses (`device_list` uses none).
    fn capability(self) -> Option<&'static str> {
        match self {
            Self::List => None,
            Self::Photo => Some("camera.photo"),
            Self::Screen => Some("screen.capture"),
            Self::Location => Some("location.get"),
            Self::Notify => Some("notify.show"),
            Self::Display => Some("display.text"),
            Self::Speak => Some("speak"),
        }
    }

    fn def(self) -> ToolDef {
        match self {
            Self::List => ToolDef::new::<ListArgs>(
                "device_list",
                "List the person's paired devices: which are online, what each can do, battery.",
                Risk::Read,
            ),
            Self::Photo => ToolDef::new::<LookArgs>(
                "device_take_photo",
                "Take a photo with a paired device's camera (phone, glasses) and save it under files/outputs/devices/.",
                Risk::Read,
            )
            .untrusted_output(),
            Self::Screen => ToolDef::new::<LookArgs>(
                "device_capture_screen",
                "Capture the screen of a paired device or of this computer and save it under files/outputs/devices/.",
                Risk::Read,
            )
            .untrusted_output(),
            Self::Location => ToolDef::new::<DeviceArgs>(
                "device_get_location",
                "Get where a paired device (usually the person's phone) is now: latitude, longitude, accuracy and a map link.",
                Risk::Read,
            ),
            Self::Notify => ToolDef::new::<TextArgs>(
                "device_notify",
                "Show a notification on a paired device.",
                Risk::Write,
            )
            .internal(),
            Self::Display => ToolDef::new::<TextArgs>(
                "device_display",
                "Show text on a paired device's display (glasses, watch, phone screen).",
                Risk::Write,
            )
            .internal(),
            Self::Speak => ToolDef::new::<TextArgs>(
                "device_speak",
                "Say something aloud on a paired device.",
                Risk::Write,
            )
            .internal(),
        }
    }
}

struct DeviceTool {
    def: ToolDef,
    kind: Kind,
    presence: Presence,
    deps: DeviceToolDeps,
}

impl Tool for DeviceTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn available(&self) -> bool {
        match self.kind {
            Kind::List => [
                "camera.photo",
                "screen.capture",
                "location.get",
                "notify.show",
                "display.text",
                "speak",
            ]
            .iter()
            .any(|c| self.presence.capability_online(c)),
            kind => kind
                .capability()
                .is_some_and(|c| self.presence.capability_online(c)),
        }
    }

    /// Photos and screenshots ask first while `nodes.camera_requires_approval` is on.
    fn risk_for(&self, _args: &Value) -> Risk {
        if matches!(self.kind, Kind::Photo | Kind::Screen)
            && self.presence.settings().camera_requires_approval
        {
            Risk::Send
        } else {
            self.def.risk
        }
    }

    fn describe(&self, args: &Value) -> Option<CallDescription> {
        let device = args
            .get("device")
            .and_then(Value::as_str)
            .filter(|d| !d.trim().is_empty())
            .map(str::to_owned);
        let label = match self.kind {
            Kind::Photo => Some("Takes a photo"),
            Kind::Screen => Some("Captures a screen"),
            _ => None,
        };
        Some(CallDescription {
            risk_label: label.map(str::to_owned),
            target: device.or_else(|| Some("your device".to_owned())),
        })
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let deps = &self.deps;
            match self.kind {
                Kind::List => {
                    parse_args::<ListArgs>(args)?;
                    list(deps).await
                }
                Kind::Photo | Kind::Screen => {
                    let args: LookArgs = parse_args(args)?;
                    look(deps, ctx, self.kind, &args).await
                }
                Kind::Location => {
                    let args: DeviceArgs = parse_args(args)?;
                    location(deps, &args.device).await
                }
                Kind::Notify | Kind::Display | Kind::Speak => {
                    let args: TextArgs = parse_args(args)?;
                    show(deps, self.kind, &args).await
                }
            }
        })
    }
}

async fn list(deps: &DeviceToolDeps) -> Result<ToolOutput, ToolError> {
    let nodes = deps
        .devices
        .list()
        .await
        .map_err(|e| ToolError::Failed(e.to_string()))?;
    let devices: Vec<Value> = nodes
        .iter()
        .map(|n| {
            json!({
                "device": n.name,
                "node_id": n.node_id,
                "kind": n.kind,
                "online": n.online,
                "capabilities": n.capabilities,
                "battery": n.battery,
                "charging": n.charging,
            })
        })
        .collect();
    ToolOutput::json(json!({ "devices": devices }))
}

/// The device a call means: by id or name, or the first online one that can do `capability`.
async fn pick(deps: &DeviceToolDeps, asked: &str, capability: &str) -> Result<Node, ToolError> {
    let nodes = deps
        .devices
        .list()
        .await
        .map_err(|e| ToolError::Failed(e.to_string()))?;
    let can = |n: &Node| {
        n.online
            && n.capabilities.iter().any(|c| c == capability)
            && counts_for(&n.node_id, capability)
    };
    let asked = asked.trim();
    if asked.is_empty() {
        return nodes.into_iter().find(can).ok_or_else(|| {
            ToolError::Failed(format!(
                "No online device can do {capability}. Open Sentient on your phone or pair one under Devices."
            ))
        });
    }
    let wanted = asked.to_lowercase();
    let Some(node) = nodes
        .into_iter()
        .find(|n| n.node_id == asked || n.name.to_lowercase() == wanted)
    else {
        return Err(ToolError::Failed(format!(
            "There is no device called {asked}. Use device_list to see the names."
        )));
    };
    if !node.online {
        return Err(ToolError::Failed(format!(
            "{} is offline. Ask the person to open Sentient on it.",
            node.name
        )));
    }
    if !can(&node) {
        return Err(ToolError::Failed(format!(
            "{} can't do {capability}.",
            node.name
        )));
    }
    Ok(node)
}

async fn invoke(
    deps: &DeviceToolDeps,
    node: &Node,
    capability: &str,
    params: Map<String, Value>,
) -> Result<Value, ToolError> {
    let reply: InvokeReply = deps
        .devices
        .invoke(&node.node_id, capability, params, None, None)
        .await
        .map_err(|e| ToolError::Failed(e.to_string()))?;
    if reply.ok {
        Ok(reply.data.unwrap_or(Value::Null))
    } else {
        Err(ToolError::Failed(reply.error_message()))
    }
}

/// Why the answer has no description: no model that can look at pictures is chosen.
const NO_VISION: &str = "No model that can look at pictures is chosen (Settings > Models > Vision), so there is no description. Tell the person where the file is so they can open it.";

/// Asks the vision role about the picture; `Err` is the note explaining why it could not.
async fn describe_picture(
    deps: &DeviceToolDeps,
    ctx: &ToolCtx,
    question: &str,
    mime: &str,
    bytes: &[u8],
) -> Result<String, String> {
    use crate::llm::types::{ChatRequest, Image, Message};
    use crate::llm::{CallOptions, ModelRole, queue::JobKind};

    if ModelRole::Vision
        .own_model(&deps.config.current())
        .is_none()
    {
        return Err(NO_VISION.to_owned());
    }
    let request = ChatRequest {
        messages: vec![
            Message::system(
                "You look at a picture from the person's own device and answer their question about it in a few plain sentences. Describe only what is visible.",
            ),
            Message::user_with_images(
                question,
                vec![Image {
                    mime: mime.to_owned(),
                    base64: base64::engine::general_purpose::STANDARD.encode(bytes),
                }],
            ),
        ],
        ..Default::default()
    };
    // A chat reply waits on this call, so it is chat work for the local queue.
    let opts = CallOptions::new(ModelRole::Vision, "devices", JobKind::Chat)
        .with_cancel(ctx.cancel.clone());
    match deps.llm.complete(request, &opts).await {
        Ok(outcome) if !outcome.reply.text.trim().is_empty() => {
            Ok(outcome.reply.text.trim().to_owned())
        }
        Ok(_) => Err(
            "The vision model gave no description. Tell the person where the file is.".to_owned(),
        ),
        Err(error) => Err(format!(
            "The vision model could not describe the picture: {error} Tell the person where the file is."
        )),
    }
}

async fn look(
    deps: &DeviceToolDeps,
    ctx: &ToolCtx,
    kind: Kind,
    args: &LookArgs,
) -> Result<ToolOutput, ToolError> {
    let capability = kind.capability().unwrap_or("camera.photo");
    let node = pick(deps, &args.device, capability).await?;
    let mut params = Map::new();
    if kind == Kind::Photo {
        params.insert("facing".to_owned(), json!("back"));
    }
    let data = invoke(deps, &node, capability, params).await?;
    let bytes = data
        .get("base64")
        .and_then(Value::as_str)
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .ok_or_else(|| ToolError::Failed(format!("{} sent no picture.", node.name)))?;
    let mime = data
        .get("mime")
        .and_then(Value::as_str)
        .unwrap_or("image/jpeg");
    let extension = match mime {
        "image/png" => "png",
        "image/webp" => "webp",
        _ => "jpg",
    };
    let what = if kind == Kind::Photo {
        "photo"
    } else {
        "screen"
    };
    let stamp = ctx.clock.now().format("%Y%m%d-%H%M%S");
    let safe_device: String = node
        .node_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let name = format!("{what}-{safe_device}-{stamp}.{extension}");
    let dir = ctx.home.outputs().join("devices");
    let path = dir.join(&name);
    let saved = bytes.clone();
    crate::tools::blocking(move || {
        std::fs::create_dir_all(&dir)
            .and_then(|()| crate::home::write_atomically(&path, &saved))
            .map_err(|e| ToolError::Failed(format!("The picture could not be saved: {e}")))
    })
    .await?;
    let mut answer = json!({
        "file": format!("files/outputs/devices/{name}"),
        "device": node.name,
        "description": Value::Null,
    });
    let question = args.question.trim();
    if !question.is_empty() {
        match describe_picture(deps, ctx, question, mime, &bytes).await {
            Ok(description) => answer["description"] = json!(description),
            Err(note) => answer["note"] = json!(note),
        }
    }
    ToolOutput::json(answer)
}

async fn location(deps: &DeviceToolDeps, device: &str) -> Result<ToolOutput, ToolError> {
    let node = pick(deps, device, "location.get").await?;
    let data = invoke(deps, &node, "location.get", Map::new()).await?;
    let (Some(lat), Some(lon)) = (
        data.get("lat").and_then(Value::as_f64),
        data.get("lon").and_then(Value::as_f64),
    ) else {
        return Err(ToolError::Failed(format!(
            "{} sent no position.",
            node.name
        )));
    };
    let mut answer = json!({
        "device": node.name,
        "lat": lat,
        "lon": lon,
        "accuracy_m": data.get("accuracy_m").cloned().unwrap_or(Value::Null),
        "map": format!("https://www.openstreetmap.org/?mlat={lat}&mlon={lon}#map=16/{lat}/{lon}"),
    });
    if let Some(label) = data.get("label").filter(|l| l.is_string()) {
        answer["label"] = label.clone();
    }
    ToolOutput::json(answer)
}

async fn show(deps: &DeviceToolDeps, kind: Kind, args: &TextArgs) -> Result<ToolOutput, ToolError> {
    let text = args.text.trim();
    if text.is_empty() {
        return Err(ToolError::InvalidArguments("text is empty".to_owned()));
    }
    let capability = kind.capability().unwrap_or("notify.show");
    let node = pick(deps, &args.device, capability).await.map_err(|e| {
        if kind == Kind::Speak {
            ToolError::Failed(format!(
                "{e} Sentient can't speak through devices without their own speech yet."
            ))
        } else {
            e
        }
    })?;
    let mut params = Map::new();
    params.insert("text".to_owned(), json!(text));
    if kind == Kind::Notify {
        params.insert(
            "title".to_owned(),
            json!(deps.config.current().assistant.name),
        );
    }
    invoke(deps, &node, capability, params).await?;
    ToolOutput::json(json!({"ok": true, "device": node.name}))
}
