// crdcheck - the API server's own CRD admission check, offline: decode a
// CustomResourceDefinition file strictly as apiextensions.k8s.io/v1, apply
// the v1 defaults, convert it to the internal type and run
// apiextensions-apiserver's ValidateCustomResourceDefinition (structural
// schema, defaults, printer columns, names). Built by
// hack/crd/apiserver-check.sh inside Debian's kubernetes source (1.20).
package main

import (
	"fmt"
	"io/ioutil"
	"os"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"
)

func main() {
	data, err := ioutil.ReadFile(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &v1); err != nil {
		fmt.Printf("%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	var crd apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &crd, nil); err != nil {
		fmt.Println(err)
		os.Exit(2)
	}
	errs := validation.ValidateCustomResourceDefinition(&crd, apiextensionsv1.SchemeGroupVersion)
	for _, e := range errs {
		fmt.Printf("%s: %s\n", os.Args[1], e.Error())
	}
	if len(errs) > 0 {
		fmt.Printf("%s: refused: %d errors\n", os.Args[1], len(errs))
		os.Exit(1)
	}
	fmt.Printf("%s: admitted by ValidateCustomResourceDefinition (apiextensions-apiserver 1.20)\n", os.Args[1])
}
