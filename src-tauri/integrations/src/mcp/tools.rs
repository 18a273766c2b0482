//! A server's tools in the registry: app `mcp_<server>`, tools `mcp_<server>_<tool>`. Their
//! results are always outside content; a tool the server marks read-only reads, the rest write
//! and can move data out. A tool that runs other tools by slug takes each call's risk from its
//! slugs.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;

use super::slug_risk::slug_risk;
use sentient_agent::tools::{Plugin, Risk, Tool, ToolCtx, ToolDef, ToolError, ToolOutput};

use super::server::{McpToolInfo, Server};

pub struct McpTool {
    def: ToolDef,
    info: McpToolInfo,
    server: Arc<Server>,
}

impl Tool for McpTool {
    fn def(&self) -> &ToolDef {
        &self.def
    }

    fn call<'a>(
        &'a self,
        args: Value,
        _ctx: &'a ToolCtx,
    ) -> BoxFuture<'a, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            match self.server.call(&self.info.mcp_name, args).await {
                Ok(value) => Ok(ToolOutput {
                    value,
                    ..ToolOutput::default()
                }),
                Err(error) => Err(ToolError::Failed(error.to_string())),
            }
        })
    }

    fn risk_for(&self, args: &Value) -> Risk {
        if self.info.per_call {
            slug_risk(args).unwrap_or(self.def.risk)
        } else {
            self.def.risk
        }
    }

    fn risk_varies(&self) -> bool {
        self.info.per_call
    }

    fn available(&self) -> bool {
        self.server.is_connected()
    }
}

/// The server's app with its tools as listed now.
pub fn plugin(server: Arc<Server>) -> Plugin {
    let tools = server
        .tools_with_schemas()
        .into_iter()
        .map(|(info, schema)| {
            let mut def = ToolDef {
                name: info.name.clone(),
                description: info.description.clone(),
                parameters: schema,
                risk: info.risk,
                untrusted_output: true,
                exfiltrates: info.risk > Risk::Read,
                internal: false,
                allow_for_chat: true,
            };
            if def.description.is_empty() {
                def.description =
                    format!("{} from the tool server {}.", info.mcp_name, server.name);
            }
            Arc::new(McpTool {
                def,
                info,
                server: server.clone(),
            }) as Arc<dyn Tool>
        })
        .collect();
    Plugin {
        id: format!("{}{}", super::APP_PREFIX, server.name),
        display_name: server.name.clone(),
        description: format!("Tools from the server {}.", server.name),
        category: "utilities".to_owned(),
        icon: "mcp".to_owned(),
        auth: "mcp".to_owned(),
        selection_hint: String::new(),
        scoped: false,
        tools,
    }
}
