/* Strict JSON checking (contract in json_strict.h): a recursive-descent recognizer. */
#include "json_strict.h"

#include <string.h>

#define MAX_DEPTH 512

typedef struct {
  const char *at;
  const char *start;
  const char *expected; /* what the first failure wanted */
} Scan;

static gboolean fail(Scan *s, const char *expected) {
  s->expected = expected;
  return FALSE;
}

static void skip_space(Scan *s) {
  while (*s->at == ' ' || *s->at == '\t' || *s->at == '\n' || *s->at == '\r')
    s->at++;
}

static gboolean is_digit(char c) {
  return c >= '0' && c <= '9';
}

static gboolean scan_number(Scan *s) {
  if (*s->at == '-')
    s->at++;
  if (*s->at == '0') {
    s->at++;
  } else if (*s->at >= '1' && *s->at <= '9') {
    while (is_digit(*s->at))
      s->at++;
  } else {
    return fail(s, "a digit");
  }
  if (*s->at == '.') {
    s->at++;
    if (!is_digit(*s->at))
      return fail(s, "a digit after '.'");
    while (is_digit(*s->at))
      s->at++;
  }
  if (*s->at == 'e' || *s->at == 'E') {
    s->at++;
    if (*s->at == '+' || *s->at == '-')
      s->at++;
    if (!is_digit(*s->at))
      return fail(s, "a digit in the exponent");
    while (is_digit(*s->at))
      s->at++;
  }
  return TRUE;
}

static gboolean scan_string(Scan *s) {
  s->at++; /* the opening quote */
  for (;;) {
    unsigned char c = (unsigned char)*s->at;
    if (c == '"') {
      s->at++;
      return TRUE;
    }
    if (c == '\0')
      return fail(s, "the closing '\"'");
    if (c < 0x20)
      return fail(s, "an escaped control character");
    if (c == '\\') {
      s->at++;
      if (*s->at == 'u') {
        for (int i = 1; i <= 4; i++)
          if (!g_ascii_isxdigit(s->at[i]))
            return fail(s, "four hex digits after \\u");
        s->at += 5;
        continue;
      }
      if (!strchr("\"\\/bfnrt", *s->at) || *s->at == '\0')
        return fail(s, "a valid escape");
    }
    s->at++;
  }
}

static gboolean scan_value(Scan *s, int depth);

static gboolean scan_container(Scan *s, int depth, char close, gboolean object) {
  if (depth >= MAX_DEPTH)
    return fail(s, "less nesting");
  s->at++;
  skip_space(s);
  if (*s->at == close) {
    s->at++;
    return TRUE;
  }
  for (;;) {
    skip_space(s);
    if (object) {
      if (*s->at != '"')
        return fail(s, "a member name");
      if (!scan_string(s))
        return FALSE;
      skip_space(s);
      if (*s->at != ':')
        return fail(s, "':'");
      s->at++;
    }
    if (!scan_value(s, depth + 1))
      return FALSE;
    skip_space(s);
    if (*s->at == close) {
      s->at++;
      return TRUE;
    }
    if (*s->at != ',')
      return fail(s, object ? "',' or '}'" : "',' or ']'");
    s->at++;
  }
}

static gboolean scan_word(Scan *s, const char *word) {
  if (strncmp(s->at, word, strlen(word)) != 0)
    return fail(s, "a value");
  s->at += strlen(word);
  return TRUE;
}

static gboolean scan_value(Scan *s, int depth) {
  skip_space(s);
  switch (*s->at) {
  case '{': return scan_container(s, depth, '}', TRUE);
  case '[': return scan_container(s, depth, ']', FALSE);
  case '"': return scan_string(s);
  case 't': return scan_word(s, "true");
  case 'f': return scan_word(s, "false");
  case 'n': return scan_word(s, "null");
  default: return scan_number(s);
  }
}

gboolean json_strict_check(const char *text, GError **error) {
  Scan s = {text, text, NULL};
  gboolean ok = scan_value(&s, 0);
  if (ok) {
    skip_space(&s);
    if (*s.at != '\0')
      ok = fail(&s, "the end of the document");
  }
  if (!ok) {
    g_autofree char *context = g_strndup(s.at, 40);
    g_set_error(error, g_quark_from_static_string("json-strict"), 0,
                "not strict JSON at byte %td: expected %s, found \"%s\"", s.at - s.start,
                s.expected, context);
  }
  return ok;
}
