//! The shape of an event's `data`, read from the vocabulary's TypeScript type (`{ callId:
//! string; attempt: number; connection?: string }`), so that a payload written by hand
//! (`run --event <type> --data …`) is checked against the same table the generated
//! declarations come from: a required field missing, or a field of the wrong type, is named.
//!
//! It reads the types the table uses: `string`, `number`, `boolean`, `unknown`, string
//! literals and their unions, `Array<…>`, and object types with optional (`?`) fields.

use serde_json::Value;

/// A type of the vocabulary.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    String,
    Number,
    Boolean,
    Unknown,
    /// One of these strings.
    Literals(Vec<String>),
    Array(Box<Shape>),
    Object(Vec<Field>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    pub optional: bool,
    pub shape: Shape,
}

/// The shape of a type of the table; `None` for one this reader does not know (a table
/// that cannot be read is caught by this module's tests, not by a user).
pub fn parse(type_text: &str) -> Option<Shape> {
    let mut reader = Reader { text: type_text, at: 0 };
    let shape = reader.shape()?;
    reader.skip_space();
    (reader.at == type_text.len()).then_some(shape)
}

/// The shape of `event`'s `data`, read once per event type for the whole process (a replay
/// checks every line against it).
pub fn of_event(event: &'static crate::vocabulary::EventType) -> Option<&'static Shape> {
    static SHAPES: std::sync::OnceLock<Vec<(&'static str, Option<Shape>)>> = std::sync::OnceLock::new();
    let shapes =
        SHAPES.get_or_init(|| crate::vocabulary::EVENTS.iter().map(|event| (event.name, parse(event.data))).collect());
    shapes.iter().find(|(name, _)| *name == event.name).and_then(|(_, shape)| shape.as_ref())
}

/// `given` merged over `example`, deeply: an object's fields over the example's (each
/// merged in turn), and each object of an array over the example's first item, so that
/// what is left out keeps the example's value (`usage`'s cache fields, a call's `callId`).
/// Anything else given replaces the example's.
pub fn merge_over(example: Value, given: Value) -> Value {
    match (example, given) {
        (Value::Object(mut example), Value::Object(given)) => {
            for (key, value) in given {
                let merged = match example.remove(&key) {
                    Some(before) => merge_over(before, value),
                    None => value,
                };
                example.insert(key, merged);
            }
            Value::Object(example)
        }
        (Value::Array(example), Value::Array(given)) => match example.into_iter().next() {
            Some(item @ Value::Object(_)) => Value::Array(
                given
                    .into_iter()
                    .map(|value| if value.is_object() { merge_over(item.clone(), value) } else { value })
                    .collect(),
            ),
            _ => Value::Array(given),
        },
        (_, given) => given,
    }
}

/// Why `value` is not of `shape` (`data.attempt must be a number, not a string`), named from
/// `path` (`data`).
pub fn check(value: &Value, shape: &Shape, path: &str) -> Result<(), String> {
    match (shape, value) {
        (Shape::Unknown, _)
        | (Shape::String, Value::String(_))
        | (Shape::Number, Value::Number(_))
        | (Shape::Boolean, Value::Bool(_)) => Ok(()),
        (Shape::Literals(allowed), Value::String(text)) if allowed.contains(text) => Ok(()),
        (Shape::Array(item), Value::Array(items)) => {
            items.iter().enumerate().try_for_each(|(index, value)| check(value, item, &format!("{path}[{index}]")))
        }
        (Shape::Object(fields), Value::Object(object)) => fields.iter().try_for_each(|field| {
            let at = format!("{path}.{}", field.name);
            match object.get(&field.name) {
                None if field.optional => Ok(()),
                None => Err(format!("`{at}` is required ({})", describe(&field.shape))),
                Some(value) => check(value, &field.shape, &at),
            }
        }),
        (shape, value) => Err(format!("`{path}` must be {}, not {}", describe(shape), kind_of(value))),
    }
}

/// What a shape is, as a sentence says it.
fn describe(shape: &Shape) -> String {
    match shape {
        Shape::String => "a string".to_owned(),
        Shape::Number => "a number".to_owned(),
        Shape::Boolean => "a boolean".to_owned(),
        Shape::Unknown => "any value".to_owned(),
        Shape::Literals(allowed) => {
            let quoted: Vec<String> = allowed.iter().map(|text| format!("\"{text}\"")).collect();
            format!("one of {}", quoted.join(", "))
        }
        Shape::Array(_) => "an array".to_owned(),
        Shape::Object(_) => "an object".to_owned(),
    }
}

fn kind_of(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(_) => "a boolean".to_owned(),
        Value::Number(_) => "a number".to_owned(),
        Value::String(text) => format!("the string {}", Value::from(text.as_str())),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

struct Reader<'t> {
    text: &'t str,
    at: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(token) {
            self.at += token.len();
            return true;
        }
        false
    }

    fn name(&mut self) -> Option<String> {
        self.skip_space();
        let length = self.rest().find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(self.rest().len());
        let name = self.rest()[..length].to_owned();
        self.at += length;
        (!name.is_empty()).then_some(name)
    }

    /// A type, or a union of string literals.
    fn shape(&mut self) -> Option<Shape> {
        let first = self.single()?;
        let Shape::Literals(mut allowed) = first else { return Some(first) };
        while self.eat("|") {
            let Shape::Literals(more) = self.single()? else { return None };
            allowed.extend(more);
        }
        Some(Shape::Literals(allowed))
    }

    fn single(&mut self) -> Option<Shape> {
        if self.eat("{") {
            return self.object();
        }
        if self.eat("\"") {
            let end = self.rest().find('"')?;
            let literal = self.rest()[..end].to_owned();
            self.at += end + 1;
            return Some(Shape::Literals(vec![literal]));
        }
        match self.name()?.as_str() {
            "string" => Some(Shape::String),
            "number" => Some(Shape::Number),
            "boolean" => Some(Shape::Boolean),
            "unknown" => Some(Shape::Unknown),
            "Array" => {
                if !self.eat("<") {
                    return None;
                }
                let item = self.shape()?;
                self.eat(">").then(|| Shape::Array(Box::new(item)))
            }
            _ => None,
        }
    }

    /// The fields of an object type, after its `{`.
    fn object(&mut self) -> Option<Shape> {
        let mut fields = Vec::new();
        while !self.eat("}") {
            let name = self.name()?;
            let optional = self.eat("?");
            if !self.eat(":") {
                return None;
            }
            let shape = self.shape()?;
            fields.push(Field { name, optional, shape });
            self.eat(";");
        }
        Some(Shape::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::EVENTS;

    #[test]
    fn every_type_of_the_table_reads_and_its_example_fits_it() {
        for event in EVENTS {
            let shape = parse(event.data).unwrap_or_else(|| panic!("{}: {}", event.name, event.data));
            let example: Value = serde_json::from_str(event.example).unwrap();
            assert_eq!(check(&example, &shape, "data"), Ok(()), "{}", event.name);
        }
    }

    #[test]
    fn what_is_given_is_merged_deeply_over_the_example() {
        let example = serde_json::json!({
            "usage": { "inputTokens": 1, "outputTokens": 2, "cacheReadTokens": 3 },
            "calls": [{ "callId": "call_1", "toolName": "search", "args": { "q": "x" } }],
            "tags": ["a"],
            "result": "done",
        });
        let given = serde_json::json!({
            "usage": { "inputTokens": 1200, "outputTokens": 300 },
            "calls": [{ "toolName": "fetch" }, { "toolName": "read", "callId": "call_9" }, "odd"],
            "tags": ["b", "c"],
            "result": null,
        });
        assert_eq!(
            merge_over(example, given),
            serde_json::json!({
                "usage": { "inputTokens": 1200, "outputTokens": 300, "cacheReadTokens": 3 },
                "calls": [
                    { "callId": "call_1", "toolName": "fetch", "args": { "q": "x" } },
                    { "callId": "call_9", "toolName": "read", "args": { "q": "x" } },
                    "odd",
                ],
                "tags": ["b", "c"],
                "result": null,
            })
        );
    }

    #[test]
    fn every_event_s_shape_is_read_once() {
        for event in EVENTS {
            assert_eq!(of_event(event), parse(event.data).as_ref(), "{}", event.name);
        }
    }

    #[test]
    fn a_missing_field_and_a_wrong_type_are_named() {
        let shape = parse("{ callId: string; attempt: number; status?: \"error\" | \"cancelled\"; calls: Array<{ toolName: string }> }").unwrap();
        let check_of = |json: &str| check(&serde_json::from_str(json).unwrap(), &shape, "data");
        assert_eq!(check_of(r#"{"attempt":1,"calls":[]}"#), Err("`data.callId` is required (a string)".to_owned()));
        assert_eq!(
            check_of(r#"{"callId":"c","attempt":"2","calls":[]}"#),
            Err("`data.attempt` must be a number, not the string \"2\"".to_owned())
        );
        assert_eq!(
            check_of(r#"{"callId":"c","attempt":2,"status":"done","calls":[]}"#),
            Err("`data.status` must be one of \"error\", \"cancelled\", not the string \"done\"".to_owned())
        );
        assert_eq!(
            check_of(r#"{"callId":"c","attempt":2,"calls":[{}]}"#),
            Err("`data.calls[0].toolName` is required (a string)".to_owned())
        );
        assert_eq!(check_of(r#"{"callId":"c","attempt":2,"calls":[],"extra":true}"#), Ok(()));
    }
}
