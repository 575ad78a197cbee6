"""The tree-sitter queries that find definitions, one per grammar.

Each pattern captures a definition as ``@def.KIND`` (its node) and, where the grammar names it
in one node, its name as ``@name``; a definition without ``@name`` is named by
:mod:`.treesitter` (a C function's declarator, a Go receiver's type). Where several patterns
match one node, the first one wins, so the specific patterns come first.
"""

from __future__ import annotations

__all__ = ["QUERIES"]

_C_COMMON = """
(function_definition) @def.function
(declaration declarator: (function_declarator)) @def.prototype
(declaration declarator: (pointer_declarator declarator: (function_declarator))) @def.prototype
(declaration declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator))))
  @def.prototype
(struct_specifier name: (_) @name body: (_)) @def.struct
(union_specifier name: (_) @name body: (_)) @def.union
(enum_specifier name: (_) @name body: (_)) @def.enum
"""

QUERIES: dict[str, str] = {
    "python": """
(class_definition name: (identifier) @name) @def.class
(function_definition name: (identifier) @name) @def.function
""",
    "javascript": """
(class_declaration name: (_) @name) @def.class
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(method_definition name: (_) @name) @def.method
(lexical_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (class)])) @def.function
(variable_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (class)])) @def.function
(expression_statement (assignment_expression left: (member_expression property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)])) @def.function
""",
    "typescript": """
(class_declaration name: (_) @name) @def.class
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(internal_module name: (_) @name) @def.namespace
(module name: (_) @name) @def.module
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(function_signature name: (identifier) @name) @def.function
(method_definition name: (_) @name) @def.method
(method_signature name: (_) @name) @def.method
(abstract_method_signature name: (_) @name) @def.method
(lexical_declaration (variable_declarator name: (identifier) @name
  value: [(arrow_function) (function_expression) (class)])) @def.function
""",
    "go": """
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name) @def.type
(type_alias name: (type_identifier) @name) @def.type
""",
    "rust": """
(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(union_item name: (type_identifier) @name) @def.union
(trait_item name: (type_identifier) @name) @def.trait
(impl_item type: (_) @name) @def.impl
(mod_item name: (identifier) @name body: (_)) @def.module
(type_item name: (type_identifier) @name) @def.type
(macro_definition name: (identifier) @name) @def.macro
""",
    "java": """
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.record
(annotation_type_declaration name: (identifier) @name) @def.interface
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method
""",
    "c": _C_COMMON
    + """
(type_definition declarator: (type_identifier) @name) @def.type
""",
    "cpp": _C_COMMON
    + """
(namespace_definition name: (_) @name) @def.namespace
(namespace_definition !name) @def.namespace
(class_specifier name: (_) @name body: (_)) @def.class
(concept_definition name: (_) @name) @def.type
(field_declaration declarator: (function_declarator)) @def.method
(type_definition declarator: (type_identifier) @name) @def.type
""",
    "markdown": """
(atx_heading) @def.heading
(setext_heading) @def.heading
""",
    "yaml": """
(stream (document (block_node (block_mapping (block_mapping_pair key: (_) @name) @def.key))))
(stream (document (block_node (block_mapping (block_mapping_pair value: (block_node (block_mapping
  (block_mapping_pair key: (_) @name) @def.key)))))))
""",
    "toml": """
(document (pair . (_) @name) @def.key)
(table . (_) @name) @def.table
(table_array_element . (_) @name) @def.table
""",
    "json": """
(document (object (pair key: (_) @name) @def.key))
(document (object (pair value: (object (pair key: (_) @name) @def.key))))
""",
}
QUERIES["tsx"] = QUERIES["typescript"]
