package overhead.probe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader and writer (RFC 8259), enough for the probe protocol: the job in, the
 * messages out. Values read are {@code Map<String,Object>} (key order kept; a duplicate key is an
 * error), {@code List<Object>}, {@code String}, {@code Long} (an integer literal that fits), {@code
 * Double} (any other number), {@code Boolean} and {@code null}. Trailing text, comments, leading zeros,
 * bare control characters and lone surrogate escapes are errors.
 */
public final class Json {
    private final String s;
    private int i;

    /** A reader at the start of s. */
    private Json(String s) {
        this.s = s;
    }

    /** A malformed document: the message says what and where (character offset). */
    public static final class JsonException extends Exception {
        private static final long serialVersionUID = 1L;

        /** An error with this message. */
        JsonException(String message) {
            super(message);
        }
    }

    /** Parses one JSON document. */
    public static Object parse(String text) throws JsonException {
        Json p = new Json(text);
        p.ws();
        Object v = p.value(0);
        p.ws();
        if (p.i != text.length()) {
            throw p.fail("trailing text");
        }
        return v;
    }

    /** An error saying what is wrong at the current offset. */
    private JsonException fail(String what) {
        return new JsonException("JSON: " + what + " at offset " + i);
    }

    /** Skips JSON whitespace. */
    private void ws() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            i++;
        }
    }

    /** Reads one value at nesting depth. */
    private Object value(int depth) throws JsonException {
        if (depth > 64) {
            throw fail("nesting too deep");
        }
        if (i >= s.length()) {
            throw fail("unexpected end");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{':
                return object(depth);
            case '[':
                return array(depth);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return number();
                }
                throw fail("unexpected character '" + c + "'");
        }
    }

    /** Reads the literal word (true, false, null), which stands for v. */
    private Object literal(String word, Object v) throws JsonException {
        if (!s.startsWith(word, i)) {
            throw fail("bad literal");
        }
        i += word.length();
        return v;
    }

    /** Reads an object; a duplicate key is an error. */
    private Map<String, Object> object(int depth) throws JsonException {
        Map<String, Object> m = new LinkedHashMap<>();
        i++;
        ws();
        if (peek('}')) {
            i++;
            return m;
        }
        while (true) {
            ws();
            if (!peek('"')) {
                throw fail("expected a key");
            }
            String k = string();
            ws();
            expect(':');
            ws();
            Object v = value(depth + 1);
            if (m.containsKey(k)) {
                throw fail("duplicate key \"" + k + "\"");
            }
            m.put(k, v);
            ws();
            if (peek(',')) {
                i++;
            } else {
                expect('}');
                return m;
            }
        }
    }

    /** Reads an array. */
    private List<Object> array(int depth) throws JsonException {
        List<Object> a = new ArrayList<>();
        i++;
        ws();
        if (peek(']')) {
            i++;
            return a;
        }
        while (true) {
            ws();
            a.add(value(depth + 1));
            ws();
            if (peek(',')) {
                i++;
            } else {
                expect(']');
                return a;
            }
        }
    }

    /** Whether the next character is c. */
    private boolean peek(char c) {
        return i < s.length() && s.charAt(i) == c;
    }

    /** Consumes c, or fails. */
    private void expect(char c) throws JsonException {
        if (!peek(c)) {
            throw fail("expected '" + c + "'");
        }
        i++;
    }

    /** Reads a string with its escapes; control characters and lone surrogates are errors. */
    private String string() throws JsonException {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            if (i >= s.length()) {
                throw fail("unterminated string");
            }
            char c = s.charAt(i++);
            if (c == '"') {
                return b.toString();
            }
            if (c < 0x20) {
                throw fail("control character in string");
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (i >= s.length()) {
                throw fail("unterminated escape");
            }
            char e = s.charAt(i++);
            switch (e) {
                case '"': b.append('"'); break;
                case '\\': b.append('\\'); break;
                case '/': b.append('/'); break;
                case 'b': b.append('\b'); break;
                case 'f': b.append('\f'); break;
                case 'n': b.append('\n'); break;
                case 'r': b.append('\r'); break;
                case 't': b.append('\t'); break;
                case 'u': {
                    char u = hex4();
                    if (Character.isHighSurrogate(u)) {
                        if (!s.startsWith("\\u", i)) {
                            throw fail("lone surrogate");
                        }
                        i += 2;
                        char low = hex4();
                        if (!Character.isLowSurrogate(low)) {
                            throw fail("lone surrogate");
                        }
                        b.append(u).append(low);
                    } else if (Character.isLowSurrogate(u)) {
                        throw fail("lone surrogate");
                    } else {
                        b.append(u);
                    }
                    break;
                }
                default:
                    throw fail("bad escape \\" + e);
            }
        }
    }

    /** Reads the four hex digits of a \\u escape. */
    private char hex4() throws JsonException {
        if (i + 4 > s.length()) {
            throw fail("short \\u escape");
        }
        int v = 0;
        for (int k = 0; k < 4; k++) {
            int d = Character.digit(s.charAt(i++), 16);
            if (d < 0) {
                throw fail("bad hex digit");
            }
            v = v * 16 + d;
        }
        return (char) v;
    }

    /** Reads a number in RFC 8259 syntax: a Long when it is an integer that fits, else a Double. */
    private Object number() throws JsonException {
        int start = i;
        if (peek('-')) {
            i++;
        }
        if (peek('0')) {
            i++;
        } else if (i < s.length() && s.charAt(i) >= '1' && s.charAt(i) <= '9') {
            digits();
        } else {
            throw fail("bad number");
        }
        boolean integer = true;
        if (peek('.')) {
            i++;
            integer = false;
            if (digits() == 0) {
                throw fail("bad fraction");
            }
        }
        if (peek('e') || peek('E')) {
            i++;
            integer = false;
            if (peek('+') || peek('-')) {
                i++;
            }
            if (digits() == 0) {
                throw fail("bad exponent");
            }
        }
        String text = s.substring(start, i);
        if (integer) {
            try {
                return Long.parseLong(text);
            } catch (NumberFormatException tooBig) {
                // falls through to a double
            }
        }
        return Double.parseDouble(text);
    }

    /** Consumes decimal digits; how many. */
    private int digits() {
        int start = i;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i - start;
    }

    // ---- writing ----

    /**
     * Writes a value as compact, ASCII-only JSON (other characters as \\u escapes, so the line reads
     * the same whatever the platform's stdout encoding): maps (keys in their iteration order), lists, long[] arrays,
     * strings, integers, finite doubles (integral ones without a fraction), booleans and null.
     *
     * @throws IllegalArgumentException for a non-finite double or a type JSON has no form for
     */
    public static String write(Object v) {
        StringBuilder b = new StringBuilder();
        write(b, v);
        return b.toString();
    }

    /** Appends v as JSON. */
    private static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String) {
            quote(b, (String) v);
        } else if (v instanceof Boolean) {
            b.append(v);
        } else if (v instanceof Long || v instanceof Integer) {
            b.append(v);
        } else if (v instanceof Double) {
            double d = (Double) v;
            if (!Double.isFinite(d)) {
                throw new IllegalArgumentException("JSON has no form for " + d);
            }
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                b.append((long) d);
            } else {
                b.append(d);
            }
        } else if (v instanceof long[]) {
            long[] a = (long[]) v;
            b.append('[');
            for (int k = 0; k < a.length; k++) {
                b.append(k == 0 ? "" : ",").append(a[k]);
            }
            b.append(']');
        } else if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                b.append(first ? "" : ",");
                first = false;
                quote(b, (String) e.getKey());
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object x : (List<?>) v) {
                b.append(first ? "" : ",");
                first = false;
                write(b, x);
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("JSON has no form for " + v.getClass());
        }
    }

    /** Appends s as an ASCII JSON string. */
    private static void quote(StringBuilder b, String s) {
        b.append('"');
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            switch (c) {
                case '"': b.append("\\\""); break;
                case '\\': b.append("\\\\"); break;
                case '\n': b.append("\\n"); break;
                case '\r': b.append("\\r"); break;
                case '\t': b.append("\\t"); break;
                default:
                    if (c < 0x20 || c > 0x7e) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        b.append('"');
    }

    // ---- typed access for the job ----

    /** {@code m[key]} as an object; absent or another type is an error naming {@code where}. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Map<String, Object> m, String key, String where) throws JsonException {
        Object v = m.get(key);
        if (!(v instanceof Map)) {
            throw new JsonException(where + "." + key + " must be an object");
        }
        return (Map<String, Object>) v;
    }

    /** {@code m[key]} as a list; absent or another type is an error. */
    @SuppressWarnings("unchecked")
    static List<Object> list(Map<String, Object> m, String key, String where) throws JsonException {
        Object v = m.get(key);
        if (!(v instanceof List)) {
            throw new JsonException(where + "." + key + " must be an array");
        }
        return Collections.unmodifiableList((List<Object>) v);
    }

    /** {@code m[key]} as a string; absent or another type is an error. */
    static String string(Map<String, Object> m, String key, String where) throws JsonException {
        Object v = m.get(key);
        if (!(v instanceof String)) {
            throw new JsonException(where + "." + key + " must be a string");
        }
        return (String) v;
    }

    /** {@code m[key]} as an integer (a Long, or a Double with an integral value); else an error. */
    static long integer(Map<String, Object> m, String key, String where) throws JsonException {
        Object v = m.get(key);
        if (v instanceof Long) {
            return (Long) v;
        }
        if (v instanceof Double && (Double) v == Math.rint((Double) v) && Math.abs((Double) v) < 9.2e18) {
            return (long) (double) (Double) v;
        }
        throw new JsonException(where + "." + key + " must be an integer");
    }

    /** {@code m[key]} as a number; absent or another type is an error. */
    static double number(Map<String, Object> m, String key, String where) throws JsonException {
        Object v = m.get(key);
        if (!(v instanceof Number)) {
            throw new JsonException(where + "." + key + " must be a number");
        }
        return ((Number) v).doubleValue();
    }
}
