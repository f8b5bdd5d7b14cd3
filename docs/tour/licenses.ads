// Licenses for the tour's `adjoin gang` (docs/gangs.md): a job with a license port docks one.
[ Name = "matlab-1"; MyType = "License"; Product = "matlab"; Requirements = true ]
[ Name = "matlab-2"; MyType = "License"; Product = "matlab"; Requirements = true ]
