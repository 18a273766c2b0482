//! PATCH's deep merge. Objects merge key by key; anything else replaces. Inside the free-form
//! maps the contract lists, a null removes that entry (elsewhere null is a value, and the
//! typed settings decide whether it is allowed).

use serde_json::Value;

/// The maps whose keys are the user's own (roles, providers, servers, rule keys).
pub const FREE_FORM_MAPS: &[&str] = &[
    "models.fallbacks",
    "models.reasoning",
    "models.temperature",
    "models.context_length_per_role",
    "models.providers",
    "integrations.mcp_servers",
    "tools.approvals.rules",
    "tools.approvals.rule_origins",
];

/// Merges `patch` into `base` in place.
pub fn merge_patch(base: &mut Value, patch: Value) {
    merge_at(base, patch, &mut Vec::new());
}

fn merge_at(base: &mut Value, patch: Value, path: &mut Vec<String>) {
    let Value::Object(patch) = patch else {
        *base = patch;
        return;
    };
    if !base.is_object() {
        *base = Value::Object(Default::default());
    }
    let free_form = FREE_FORM_MAPS.contains(&path.join(".").as_str());
    let Some(target) = base.as_object_mut() else {
        return;
    };
    for (key, value) in patch {
        if value.is_null() && free_form {
            target.remove(&key);
            continue;
        }
        match target.get_mut(&key) {
            Some(existing) if existing.is_object() && value.is_object() => {
                path.push(key);
                merge_at(existing, value, path);
                path.pop();
            }
            _ => {
                target.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nested_objects_merge_and_scalars_replace() {
        let mut base =
            json!({"ui": {"theme": "dark", "accent": "sentient"}, "models": {"primary": "a"}});
        merge_patch(
            &mut base,
            json!({"ui": {"theme": "light"}, "models": {"primary": "b"}}),
        );
        assert_eq!(
            base,
            json!({"ui": {"theme": "light", "accent": "sentient"}, "models": {"primary": "b"}})
        );
    }

    #[test]
    fn null_removes_only_inside_free_form_maps() {
        let mut base = json!({
            "models": {"fast": "x", "fallbacks": {"primary": ["a"], "fast": ["b"]}},
            "tools": {"approvals": {"rules": {"gmail": "never", "slack": "ask"}}}
        });
        merge_patch(
            &mut base,
            json!({
                "models": {"fast": null, "fallbacks": {"fast": null}},
                "tools": {"approvals": {"rules": {"gmail": null}}}
            }),
        );
        assert_eq!(base["models"]["fallbacks"], json!({"primary": ["a"]}));
        assert_eq!(base["tools"]["approvals"]["rules"], json!({"slack": "ask"}));
        // Outside a free-form map, null is a value (here: "use primary").
        assert_eq!(base["models"]["fast"], Value::Null);
    }

    #[test]
    fn lists_replace_rather_than_append() {
        let mut base = json!({"models": {"fallbacks": {"primary": ["a", "b"]}}});
        merge_patch(
            &mut base,
            json!({"models": {"fallbacks": {"primary": ["c"]}}}),
        );
        assert_eq!(base["models"]["fallbacks"]["primary"], json!(["c"]));
    }
}
