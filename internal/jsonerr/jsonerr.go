// Package jsonerr words encoding/json's errors in JSON's terms, never Go's (no struct or package
// names reach a user), and refuses what encoding/json lets through silently: a key given twice in
// one object, of which it would keep the last.
package jsonerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Describe returns err with a type mismatch said as "field F is a string, expected a number"; other
// errors are returned as they are.
func Describe(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err
	}
	where := "the value"
	if te.Field != "" {
		where = "field " + te.Field
	}
	return fmt.Errorf("%s is %s, expected %s", where, withArticle(te.Value), withArticle(kind(te.Type)))
}

// kind is the JSON word for what a Go type holds.
func kind(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "whole number of " + fmt.Sprint(t.Bits()) + " bits"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "non-negative whole number of " + fmt.Sprint(t.Bits()) + " bits"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Pointer:
		return kind(t.Elem())
	}
	return "another value"
}

func withArticle(s string) string {
	switch {
	case s == "" || s == "true or false" || s == "another value":
		return s
	case s[0] == 'a' || s[0] == 'o':
		return "an " + s
	}
	return "a " + s
}

// CheckKeys refuses a JSON document in which some object has a key twice, naming the key and where.
func CheckKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walk(dec, "")
}

func walk(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			if seen[key] {
				return fmt.Errorf("key %q given twice in the object %s", key, orTop(path))
			}
			seen[key] = true
			if err := walk(dec, path+"."+key); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walk(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

func orTop(path string) string {
	if path == "" {
		return "at the top"
	}
	return path[1:]
}
