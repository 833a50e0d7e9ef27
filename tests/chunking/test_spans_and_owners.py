"""Chunk spans and owners the v7 suite writers found wrong (issue 11, point 1), on small
real snippets chunked with a small config so that their containers and functions split.

* The last member of a split container ends where that member ends: the container's
  closing lines (``}``, Ruby's ``end``) are a chunk of their own, owned by nothing, not
  the tail of the member before them (jsoup's ``Validate``, Slim's ``RequestResponse``,
  puma's ``CommonLogger``).
* A module that only wraps one class is named by that class (puma's ``module Puma``
  around ``class CommonLogger``), not by the outermost module.
* Members of an object literal passed alone to ``X.extend({…})`` / ``X.mixin({…})`` are
  ``X.m`` (jQuery's ``jQuery.extend`` and ``jQuery.fn.extend``, src/attributes/attr.js).
* ``var a, b = …, init = jQuery.fn.init = function …`` is named by the function's names
  first (jQuery's src/core/init.js).
* A named function nested in a function long enough to be cut into pieces is a chunk of
  its own, a piece of the outer function that defines ``outer.inner`` (fastify's
  ``inject`` inside ``fastify`` in fastify.js).
"""

from __future__ import annotations

import textwrap

from codegold.cases.match import symbol_matches
from codegold.chunking import Chunk, ChunkerConfig, chunk_file
from codegold.corpus.model import FileRole
from codegold.roles import Role

SMALL = ChunkerConfig(max_chunk_lines=8, long_definition_factor=2, min_member_lines=4)


def chunks_of(path: str, source: str, config: ChunkerConfig = SMALL) -> tuple[Chunk, ...]:
    result = chunk_file(path, textwrap.dedent(source), file_role=FileRole.SOURCE, config=config)
    assert result.parse_ok
    return result.chunks


def spans(chunks: tuple[Chunk, ...]) -> list[tuple[int, int, str | None]]:
    return [(c.start_line, c.end_line, c.symbol) for c in chunks]


def owner_of(chunks: tuple[Chunk, ...], label: str) -> Chunk:
    found = [c for c in chunks if symbol_matches(label, c.symbol, c.symbols) and c.symbol]
    assert found, f"no chunk for {label}: {spans(chunks)}"
    return found[0]


# jsoup src/main/java/org/jsoup/helper/Validate.java (the end of the class), MIT.
JAVA = """\
public final class Validate {

    private Validate() {}

    /**
     Cause a failure, but return false so it can be used in an assert statement.
     @param msg message to output.
     */
    static boolean assertFail(String msg) {
        fail(msg);
        return false;
    }

    /**
     Cause a failure.
     @param msg message to output.
     */
    public static void fail(String msg, Object... args) {
        throw new ValidationException(String.format(msg, args));
    }
}
"""


def test_java_last_method_ends_at_its_own_brace() -> None:
    chunks = chunks_of("src/main/java/org/jsoup/helper/Validate.java", JAVA)
    fail = owner_of(chunks, "Validate.fail")
    assert (fail.start_line, fail.end_line) == (14, 20)
    assert fail.text.rstrip().endswith("    }")
    last = chunks[-1]
    assert (last.start_line, last.end_line, last.text) == (21, 21, "}")
    assert last.symbol is None and last.symbols == ()
    assert last.role is Role.CALL_SITE
    assert owner_of(chunks, "Validate.assertFail").end_line == 12


# Slim Slim/Handlers/Strategies/RequestResponse.php, MIT.
PHP = """\
<?php

namespace Slim\\Handlers\\Strategies;

class RequestResponse implements InvocationStrategyInterface
{
    /**
     * Invoke a route callable with request, response, and all route parameters
     * as an array of arguments.
     */
    public function __invoke(
        callable $callable,
        ServerRequestInterface $request,
        ResponseInterface $response,
        array $routeArguments
    ): ResponseInterface {
        foreach ($routeArguments as $k => $v) {
            $request = $request->withAttribute($k, $v);
        }

        return $callable($request, $response, $routeArguments);
    }
}
"""


def test_php_last_method_ends_at_its_own_brace() -> None:
    chunks = chunks_of("Slim/Handlers/Strategies/RequestResponse.php", PHP)
    invoke = owner_of(chunks, "RequestResponse.__invoke")
    assert (invoke.start_line, invoke.end_line) == (7, 22)
    assert chunks[-1].text == "}" and chunks[-1].symbol is None


# puma lib/puma/commonlogger.rb (abridged: the last two methods), BSD-3-Clause.
RUBY = """\
# frozen_string_literal: true

module Puma
  # Rack::CommonLogger forwards every request to the given +app+, and
  # logs a line in the Apache common log format to the +logger+.
  class CommonLogger
    def write(msg)
      logger = @logger || env['rack.errors']

      # Standard library logger doesn't support write but it supports << which actually
      # calls to write on the log device without formatting
      if logger.respond_to?(:write)
        logger.write(msg)
      else
        logger << msg
      end
    end

    def extract_content_length(headers)
      value = headers[CONTENT_LENGTH] or return '-'
      value.to_s == '0' ? '-' : value
    end
  end
end
"""


def test_ruby_last_method_ends_at_its_own_end() -> None:
    chunks = chunks_of("lib/puma/commonlogger.rb", RUBY)
    last = owner_of(chunks, "CommonLogger.extract_content_length")
    assert (last.start_line, last.end_line) == (19, 22)
    assert chunks[-1].text == "  end\nend" and chunks[-1].symbol is None
    assert owner_of(chunks, "CommonLogger.write").end_line == 17


def test_ruby_module_wrapping_one_class_is_named_by_the_class() -> None:
    # Unsplit (the default config): one chunk, the class's, with the module's name too.
    chunks = chunks_of("lib/puma/commonlogger.rb", RUBY, ChunkerConfig())
    wrapped = [c for c in chunks if c.start_line <= 6 <= c.end_line]
    assert len(wrapped) == 1
    chunk = wrapped[0]
    assert chunk.symbol == "Puma.CommonLogger"
    assert chunk.kind == "module"  # what its text is
    assert chunk.header == ""
    assert {"Puma", "Puma.CommonLogger", "CommonLogger.write"} <= set(chunk.symbols)
    assert chunk.start_line == 3


def test_ruby_module_holding_two_classes_keeps_its_own_name() -> None:
    source = """\
    module Zip
      class Error < StandardError
        def message = 'zip error'
      end
      class EntryExistsError < Error
        def message = 'entry exists'
      end
    end
    """
    chunks = chunks_of("lib/zip/errors.rb", source, ChunkerConfig())
    assert [c.symbol for c in chunks] == ["Zip"]


# jQuery src/attributes/attr.js (abridged), MIT.
JQUERY_ATTR = """\
import { jQuery } from "../core.js";
import { access } from "../core/access.js";

jQuery.fn.extend( {
	attr: function( name, value ) {
		return access( this, jQuery.attr, name, value, arguments.length > 1 );
	},

	removeAttr: function( name ) {
		return this.each( function() {
			jQuery.removeAttr( this, name );
		} );
	}
} );

jQuery.extend( {
	attr: function( elem, name, value ) {
		var ret, hooks,
			nType = elem.nodeType;
		return ret;
	},

	attrHooks: {},

	removeAttr: function( elem, value ) {
		var name,
			i = 0;
		return i;
	}
} );
"""


def test_members_of_an_object_passed_alone_to_extend() -> None:
    chunks = chunks_of("src/attributes/attr.js", JQUERY_ATTR, ChunkerConfig())
    defined = {name for c in chunks for name in c.symbols}
    assert {"jQuery.fn.attr", "jQuery.fn.removeAttr", "jQuery.attr", "jQuery.removeAttr"} <= (
        defined
    )
    # The call defines its members, not the object it extends; data members are no names.
    assert not {"jQuery", "jQuery.fn", "jQuery.attrHooks"} & defined
    fn_attr = owner_of(chunks, "jQuery.fn.attr")
    static_attr = owner_of(chunks, "jQuery.attr")
    assert fn_attr.start_line == 4 and static_attr.start_line == 16
    assert fn_attr.role is Role.DEFINITION
    # `jQuery.attr` names the static one only; `fn.attr` (a suffix) the prototype one.
    assert not symbol_matches("jQuery.attr", fn_attr.symbol, fn_attr.symbols)
    assert symbol_matches("fn.attr", fn_attr.symbol, fn_attr.symbols)


def test_members_of_a_long_extend_call_are_chunks_of_their_own() -> None:
    chunks = chunks_of("src/attributes/attr.js", JQUERY_ATTR)
    by_symbol = {c.symbol: (c.start_line, c.end_line) for c in chunks if c.symbol}
    assert by_symbol["jQuery.attr"] == (17, 21)
    assert by_symbol["jQuery.removeAttr"] == (25, 29)


def test_extend_with_a_target_is_still_a_mixin_into_the_target() -> None:
    source = """\
    jQuery.extend( jQuery.event, {
      trigger: function( event, data, elem, onlyHandlers ) {
        return event;
      }
    } );
    """
    chunks = chunks_of("src/event/trigger.js", source, ChunkerConfig())
    assert {n for c in chunks for n in c.symbols} == {"jQuery.event.trigger"}


# jQuery src/core/init.js (abridged), MIT.
JQUERY_INIT = """\
import { jQuery } from "../core.js";

// A central reference to the root jQuery(document)
var rootjQuery,

	// A simple way to check for HTML strings
	rquickExpr = /^(?:\\s*(<[\\w\\W]+>)[^>]*|#([\\w-]+))$/,

	init = jQuery.fn.init = function( selector, context ) {
		var match, elem;

		// HANDLE: $(""), $(null), $(undefined), $(false)
		if ( !selector ) {
			return this;
		}
		return jQuery.makeArray( selector, this );
	};

// Give the init function the jQuery prototype for later instantiation
init.prototype = jQuery.fn;
"""


def test_a_function_among_other_declarators_is_named_first() -> None:
    chunks = chunks_of("src/core/init.js", JQUERY_INIT, ChunkerConfig())
    chunk = owner_of(chunks, "jQuery.fn.init")
    assert chunk.symbol == "init"
    assert chunk.symbols[:2] == ("init", "jQuery.fn.init")
    assert {"rootjQuery", "rquickExpr"} <= set(chunk.symbols)
    assert chunk.kind == "function"


# fastify fastify.js (abridged: the end of `fastify`, two of its nested functions), MIT.
FASTIFY = """\
function fastify (serverOptions) {
  const fastify = {}

  if (initChannel.hasSubscribers) {
    initChannel.publish({ fastify })
  }

  // Older nodejs versions may not have asyncDispose
  if ('asyncDispose' in Symbol) {
    fastify[Symbol.asyncDispose] = function dispose () {
      return fastify.close()
    }
  }

  return fastify

  function throwIfAlreadyStarted (msg) {
    if (fastify[kState].started) throw new FST_ERR_INSTANCE_ALREADY_LISTENING(msg)
  }

  // HTTP injection handling
  // If the server is not ready yet, this
  // utility will automatically force it.
  function inject (opts, cb) {
    // lightMyRequest is dynamically loaded as it seems very expensive
    // because of Ajv
    if (lightMyRequest === undefined) {
      lightMyRequest = require('light-my-request')
    }

    if (fastify[kState].started) {
      return lightMyRequest(httpHandler, opts, cb)
    }
    return fastify.ready().then(() => lightMyRequest(httpHandler, opts))
  }
}

function processOptions (options) {
  return options
}
"""


def test_nested_function_of_a_long_function_is_a_chunk_of_its_own() -> None:
    chunks = chunks_of("fastify.js", FASTIFY)
    inject = owner_of(chunks, "fastify.inject")
    # A piece of `fastify` (a label for the outer function matches the code it runs)
    # that defines `fastify.inject`.
    assert inject.symbol == "fastify"
    assert inject.symbols == ("fastify.inject",)
    # Its comment block comes with it; the outer function's closing brace does not.
    assert (inject.start_line, inject.end_line) == (21, 35)
    assert inject.kind == "function" and inject.role is Role.DEFINITION
    assert inject.header == "function fastify (serverOptions) {"
    assert symbol_matches("inject", inject.symbol, inject.symbols)
    # The short one stays in the outer function's pieces, named there as before.
    outer = [c for c in chunks if c.symbol == "fastify" and c is not inject]
    assert outer[0].kind == "function" and outer[0].start_line == 1
    assert all(c.kind == "window" for c in outer[1:])
    assert any("fastify.throwIfAlreadyStarted" in c.symbols for c in outer)
    assert "fastify.inject" not in {n for c in outer for n in c.symbols}
    closer = [c for c in chunks if c.start_line == 36]
    assert closer and closer[0].text == "}" and closer[0].symbol is None
    assert owner_of(chunks, "processOptions").start_line == 38


def test_a_long_function_without_nested_functions_is_cut_as_before() -> None:
    source = "function big () {\n" + "".join(f"  step({i})\n" for i in range(30)) + "}\n"
    chunks = chunks_of("big.js", source)
    assert [c.symbol for c in chunks] == ["big"] * len(chunks)
    assert chunks[0].kind == "function"
    assert {c.kind for c in chunks[1:]} == {"window"}
    assert chunks[-1].end_line == 32


def test_object_assigned_through_a_chain_is_named_by_the_first_target() -> None:
    # jQuery src/core.js (abridged), MIT.
    source = """\
    jQuery.fn = jQuery.prototype = {

      // The current version of jQuery being used
      jquery: version,

      toArray: function() {
        return slice.call( this );
      },

      pushStack: function( elems ) {
        return jQuery.merge( this.constructor(), elems );
      }
    };
    """
    chunks = chunks_of("src/core.js", source, ChunkerConfig())
    assert [c.symbol for c in chunks] == ["jQuery.fn"]
    assert set(chunks[0].symbols) == {"jQuery.fn", "jQuery.fn.toArray", "jQuery.fn.pushStack"}
