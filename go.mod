module github.com/xosplan/xosplan

go 1.26

require (
	github.com/dominikbraun/graph v0.23.0
	go.yaml.in/yaml/v3 v3.0.6
)
