package rocpd

import (
	"database/sql"
	"fmt"
)

// Query runs one SQL query on the database at path, opened read-only, and returns every row as
// text (SQLite's own rendering of each value; NULL as "NULL"): what tests and tools need to check a
// database without the sqlite3 program.
func Query(path, query string) ([][]string, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer db.Close()
	rs, err := db.Query(query)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", path, query, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, query, err)
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
			if !v.Valid {
				row[i] = "NULL"
			}
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", path, query, err)
	}
	return out, nil
}
