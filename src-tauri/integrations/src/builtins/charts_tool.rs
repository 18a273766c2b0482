//! `charts_create`: draws a bar, line, pie or scatter chart on this computer (no network) into
//! `files/outputs/charts/`, as a PNG for the chat to show and an SVG of the same chart. The
//! result names the files, which `/api/files/content/{name}` serves.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use sentient_agent::tools::{
    Plugin, ProgressKind, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput, blocking,
};

use super::charts::{self, ChartSpec};

/// Where charts are saved, under Sentient's files folder.
pub const CHARTS_FOLDER: &str = "outputs/charts";

pub fn plugin() -> Plugin {
    Plugin {
        id: "charts".to_owned(),
        display_name: "Charts".to_owned(),
        description: "Draw bar, line, pie and scatter charts from numbers.".to_owned(),
        category: "built_in".to_owned(),
        icon: "chart".to_owned(),
        auth: "none".to_owned(),
        selection_hint:
            "chart graph plot visualize bar line pie scatter trend by month spending numbers"
                .to_owned(),
        scoped: false,
        tools: vec![Arc::new(ChartsCreate {
            def: ToolDef::new::<ChartSpec>(
                "charts_create",
                "Draw a chart (bar, line, pie or scatter) from series of [x, y] points and save it as a picture the chat shows.",
                Risk::Read,
            ),
        })],
    }
}

struct ChartsCreate {
    def: ToolDef,
}

impl Tool for ChartsCreate {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let spec = charts::parse(&args)
                .map_err(|error| ToolError::InvalidArguments(error.to_string()))?;
            ctx.progress(
                ProgressKind::Status,
                format!("Drawing {}", spec.title.trim()),
            );
            let stem = charts::file_stem(&spec.title, ctx.clock.now());
            let folder = ctx.files_root().join(CHARTS_FOLDER);
            let title = spec.title.trim().to_owned();
            let kind = serde_json::to_value(spec.kind).unwrap_or(Value::Null);
            let saved_stem = stem.clone();
            let (width, height) = blocking(move || {
                let chart =
                    charts::render(&spec).map_err(|error| ToolError::Failed(error.to_string()))?;
                let written = std::fs::create_dir_all(&folder)
                    .and_then(|()| {
                        std::fs::write(folder.join(format!("{saved_stem}.png")), &chart.png)
                    })
                    .and_then(|()| {
                        std::fs::write(folder.join(format!("{saved_stem}.svg")), &chart.svg)
                    });
                written.map_err(|error| {
                    tracing::warn!(%error, "a chart could not be saved");
                    ToolError::Failed(
                        "The chart could not be saved in Sentient's files folder.".to_owned(),
                    )
                })?;
                Ok((chart.width, chart.height))
            })
            .await?;
            ToolOutput::json(json!({
                "file": format!("{CHARTS_FOLDER}/{stem}.png"),
                "svg": format!("{CHARTS_FOLDER}/{stem}.svg"),
                "kind": kind,
                "title": title,
                "width": width,
                "height": height,
            }))
        })
    }
}
