A0 = "ümlaut"
A1 = mixed
A2 = b
A3 = (-1 / TARGET.lst)
A4 = "$(x)"
Name = "a0"

A0 = false
A1 = e
Name = "a1"

A0 = "x\"
A1 = "a'b"
A2 = "quote\"q"
A3 = "$(x)"
A4 = "a\b"
A5 = big
Name = "a2"

A0 = false
A1 = isUndefined(TARGET.q)
Name = "a3"

A0 = 0
A1 = "\"
A2 = true
Name = "a4"

A0 = "a'b"
A1 = "tab	here"
A2 = "ümlaut"
Name = "a5"

A0 = "a.*"
A1 = (true.x =!= (x ? "true" : 3.0))
A2 = "ümlaut"
Name = "a6"

A0 = n[error][unparse("<")]
A1 = "$(x)"
A2 = strs
Name = "a7"

A0 = 3
A1 = ((b ? TARGET.a : MY.s) | size(neg))
A2 = 10000000000.0
Name = "a8"

A0 = toLower( ~3.0)
A1 = undefined
A2 = (false || MY.a)
A3 = (undefined ? error : undefined)
A4 = "\"
Name = "a9"

A0 = "a.*".a0
A1 = 1
A2 = n.y
A3 = (missing >= ifThenElse(255,z,"a b"))
Name = "a10"

A0 = "quote\"q"
A1 = "#no comment"
A2 = floor(MY.a)
Name = "a11"

A0 = "#no comment"
A1 = "ümlaut"
A2 = "ABC"
Name = "a12"

A0 = "x\"
A1 =  +x
A2 = TARGET.r
A3 = { min(strs),formatTime(rt),formatTime((s ? error : rt), !strs) }
A4 = "ümlaut"
A5 = ( !member(rt,TARGET.a) =?= (MY.a != isUndefined(TARGET.lst)))
Name = "a13"

A0 = undefined
A1 = x
A2 = identicalMember(2,"%Y")[(true << 255)]
A3 = (-1 / strs)
A4 = size(missing)
A5 = true[(rt ? (MY.a - up) : TARGET.missing)]
Name = "a14"

A0 = "ümlaut"
Name = "a15"

A0 = "a'b"
A1 = "$(x)"
Name = "a16"

A0 = (max(Memory) ? Name : ("" =?= 10))[n.y]
A1 = MY.s
A2 = (absTime(x) ^ error)
A3 = (up && undefined)
A4 = "#no comment"
Name = "a17"

A0 = (isBoolean("8.9.1") + isClassAd((false >= "a.*")))
A1 = n.x[t]
Name = "a18"

A0 = "a.*"
Name = "a19"

A0 = { (missing =?= f),error }
Name = "a20"

A0 = 0.0025
A1 = TARGET.Name
A2 = MY.s
A3 = false.a0
A4 = ((Arch == up) % TARGET.fl)
A5 = ifThenElse((10000000000.0 >= 1.5),(TARGET.Name * TARGET.fl),10000000000.0)
Name = "a21"

A0 = "a\b"
A1 = ((error % "x86_64") =?= (z - e))
A2 = 0.1
A3 = t
A4 = u[TARGET.fl[MY.a]]
A5 = ((ab.y &  -big) >=  +(MY.s ? "a b" : -9223372036854775807))
Name = "a22"

A0 = 1[0.0025]
A1 = (pow(b,int(zr)) / z)
A2 = MY.s
Name = "a23"

A0 = "tab	here"
A1 = "ümlaut"
A2 = (avg(ab)[ifThen(s,Name)] <= real("1"))
A3 = "quote\"q"
A4 = TARGET.lst
Name = "a24"

A0 = (up ? (TARGET.r ? 10000000000.0 : "x86_64")[TARGET.lst] : undefined)
A1 = (true.a0 - (l ? -9223372036854775807 : TARGET.lst))
Name = "a25"

A0 = (3.0 == big)
A1 = "$(x)"
A2 = (2 >>> 2147483648)
A3 = "tab	here"
A4 = true
A5 = { "%Y",ab }
Name = "a26"

A0 = "tab	here"
A1 = "tab	here"
Name = "a27"

A0 = "a\b"
A1 = x
A2 = true
A3 = (TARGET.Name >= 255)
Name = "a28"

A0 = 255
A1 = isUndefined(Name)
A2 = e
A3 = (string(-9223372036854775807) > min(3))
A4 = identicalMember(("==" << neg),(e * x))
A5 = "#no comment"
Name = "a29"

A0 = true
A1 = (TARGET.Name ? MY.s : f)
A2 =  ~(t % error)
A3 = error
A4 = (isBoolean(false[255]) >>> false)
Name = "a30"

A0 = e
A1 = -0.0
Name = "a31"

A0 = "#no comment"
A1 = "a'b"
A2 = splitSlotName(undefined)
A3 = ifThenElse([ a0 = join(n) ],({ 1,MY.n.y }.a + "slot1@host"), -f)
Name = "a32"

A0 = (a ? "x86_64" : 0.1)
A1 = ((TARGET.Name =?= 3.0) != (TARGET.Name < l))
A2 = (stringListSum(-2.25) =?= (0 | false))
A3 = ((false & (missing > 2147483648)) ? (false ? ("8.9.1" / undefined) : (TARGET.lst ? u : false)) : (strs[b] != error[TARGET.lst]))
A4 = "x\"
A5 = [ a0 = sum(z) ]
Name = "a33"

A0 = error
A1 = 3.0
Name = "a34"

A0 = "tab	here"
A1 = Arch
Name = "a35"

A0 = [ a0 = true ]
A1 = "$(x)"
A2 = 0.1
A3 = MY.n.y
Name = "a36"

A0 = u
A1 = (strcmp([ p0 = z ].y,(0.0025 ? big : 10000000000.0)) ==  -(-0.0 < true))
A2 = Name
A3 = "tab	here"
A4 = TARGET.a.a0
A5 = false
Name = "a37"

A0 = false[rt]
A1 = "x\"
A2 = 3.0
A3 = -1
Name = "a38"

A0 = MY.n.y
Name = "a39"

A0 = (({  }.a ? (n != false) : (TARGET.lst / 2)) >> 3.0)
A1 = e
A2 = interval("a, b")
A3 = 3.0.a
A4 = 10000000000.0
Name = "a40"

A0 = strs
A1 = 10000000000.0.a0
A2 = avg(3.0)
Name = "a41"

A0 = 255
A1 = (1E+308 ? undefined : 1E+308)
Name = "a42"

A0 = neg
A1 = "\"
A2 = "quote\"q"
A3 = MY.s
Name = "a43"

A0 = "a.*"
A1 = 1.5.Memory
A2 = "quote\"q"
Name = "a44"

A0 = tonly
A1 = (TARGET.Name - false)
Name = "a45"

A0 = -0.0025
A1 = "tab	here"
A2 = (MY.s > 1E+308)
Name = "a46"

A0 = f
Name = "a47"

A0 = "a'b"
A1 = ((b + error) =!= (2 <= a))
A2 = "quote\"q"
A3 = (error || 0)
A4 = "quote\"q"
Name = "a48"

A0 = TARGET.Name
A1 = Arch.a
A2 = TARGET.a
Name = "a49"

A0 = "#no comment"
A1 = "#no comment"
A2 = avg("^A")
A3 = "#no comment"
A4 = "x\"
A5 = false
Name = "a50"

A0 = (((undefined && ab) + ("%Y" * -0.0)) - (255 != (big * b)))
A1 = u
Name = "a51"

A0 = { true,undefined }.Memory
A1 = "a\b"
Name = "a52"

A0 = MY.a
Name = "a53"

A0 = join(((undefined & 10) % 0),false,big)
A1 = ((10 =?= 1000) == (3.0 | rt))
Name = "a54"

A0 = MY.s
Name = "a55"

A0 = up
A1 = ((false / up) & round(n))[s[1]["slot1@host"]]
A2 =  !Memory
A3 = 0.1
A4 = (isUndefined(strs[f]) | MY.n.y)
Name = "a56"

A0 = "a'b"
A1 = s
Name = "a57"

A1 = 1.5
A2 = "ümlaut"
Name = "a58"

A0 = "a'b"
A1 = 1E+308[length(undefined)]
A2 =  !up
A3 = (bool(false) ? -2.25[(TARGET.q ^ TARGET.Memory)] : "<")
A4 = "a\b"
A5 = "\"
Name = "a59"

A0 = "$(x)"
A1 = TARGET.q
Name = "a60"

A0 = ((rt | TARGET.missing) ? (big >> "8.10.0") :  !undefined)
Name = "a61"

A0 = missing
A1 = mixed
A2 = "tab	here"
A3 = "a'b"
A4 = 1.5
Name = "a62"

A0 = 3.0
A1 = "tab	here"
Name = "a63"

A0 = 1.5
A1 = undefined
A2 = MY.s
Name = "a64"

A0 = "^A"
A1 =  -( -error ? real(undefined) : 0.0025)
A2 = max(false)
Name = "a65"

A0 = n.y
Name = "a66"

A0 = (sref =?= 1E+308)
A1 = (true ^ e)
A2 = "a\b"
Name = "a67"

A0 = "quote\"q"
A1 = MY.s
A2 =  !TARGET.r
A3 = size((strs <= n.x))
A4 = "$(x)"
Name = "a68"

A0 = undefined
A1 = up
Name = "a69"

A0 =  !"true"[splitSlotName("1")]
A1 = "a\b"
A2 = 1E+308
A3 = "a\b"
A4 = (1E+308 >= "<".a)
A5 = error
Name = "a70"

A0 = 1000
A1 = "$(x)"
Name = "a71"

A0 = t
Name = "a72"

A0 = true
A1 = "a'b"
A2 = Name
A3 = n.x.y
Name = "a73"

A0 = (undefined ?  ~(undefined - 255) :  ~evalInEachContext(n.x,sref))
A1 = "\"
Name = "a74"

A0 = a
Name = "a75"

A0 = a
Name = "a76"

A0 = "\"
A1 = versioncmp((255 / ("==" > e)),false.a)
A2 = true
A3 = sum(((MY.n.y ? l : undefined) % strcat(true)))
A4 = TARGET.lst
Name = "a77"

A0 = "x\"
A1 = real(TARGET.r)
A2 = z[-9223372036854775807]
A3 = TARGET.missing
A4 = 3.0
A5 = MY.a
Name = "a78"

A0 = "quote\"q"
A1 = -2.25
Name = "a79"

A0 = 0
A1 = "$(x)"
A2 = l
A3 = [ p0 = (neg <= "8.9.1") ]
Name = "a80"

A0 = Memory
A1 = (versioncmp(undefined,false) =?= TARGET.q.x)
A2 = false
Name = "a81"

A0 = 2
A1 = ((sum(undefined) + [  ]) + countMatches((Memory =?= 0),(mixed ? TARGET.q : n.y)))
A2 = "a\b"
Name = "a82"

A0 = "a'b"
A1 = "a'b"
A2 = strcmp((false == 0.0025),TARGET.lst)
A3 = "tab	here"
A4 = "$(x)"
A5 = sref
Name = "a83"

A0 = "#no comment"
Name = "a84"

A0 = "a\b"
Name = "a85"

A0 = TARGET.a
A1 = "^A"
Name = "a86"

A0 = (undefined || 1.5)
A1 = TARGET.lst
Name = "a87"

A0 = "tab	here"
A1 = false
A2 = "tab	here"
Name = "a88"

A0 = isClassAd(big.Memory)
A1 = member(TARGET.Name,z)[((sref - l) ^ error)]
A2 = error
A3 = allCompare((TARGET.a[false] =?= 1E+308),((Arch ? -2.25 : 255) % (e | 1)), !true.a0)
A4 = (unparse(s["slot1@host"]) && rt[(-0.0 ? TARGET.q : undefined)])
A5 = TARGET.r
Name = "a89"

A0 = "tab	here"
A1 = (a >>  +stringListMember(0.1,s,true))
A2 = big
A3 = "a'b"
Name = "a90"

A0 = "a\b"
A1 = "\"
A2 = (0.0025 == 3.0)[("abc" ? 2 : s)]
A3 = isInteger(false)
A4 = "\"
A5 = ((1 <= 0.1) / 1.5)
Name = "a91"

A0 = missing
A1 = mixed
Name = "a92"

A0 =  !"2.5"
A1 = "\"
A2 = a
A3 = "a'b"
A4 = "x\"
Name = "a93"

A0 = ifThen(z,0.1[s])
A1 = (((MY.a > TARGET.fl) + 2147483648) != (false.a0 ? 2147483648 : (2147483648 == 10000000000.0)))
Name = "a94"

A0 = Arch
A1 = false
A2 = "tab	here"
A3 = "1"
A4 = "a,b,c"
Name = "a95"

A0 = TARGET.fl[up]
A1 = (stringListsIntersect(Name,n.x)[(undefined & "x86_64")] << isClassAd(f[false]))
A2 = MY.n.y
A3 = 0.0
A4 = strs
Name = "a96"

A0 = (false >>> "true")
A1 = "quote\"q"
A2 = "ümlaut"
A3 =  - -(zr >= TARGET.q)
A4 = undefined
A5 = "\"
Name = "a97"

A0 = "quote\"q"
Name = "a98"

A0 = ifThenElse(n.y,s,error)
A1 = (TARGET.Name ^ x)
A2 = zr
A3 = 3[false]
A4 = ifThen(pow(true[zr],(1E+308 << n.y)),((255 >>> f) / (TARGET.q < 0.0)))
A5 = TARGET.Name
Name = "a99"

A0 = tonly.x
A1 = anyCompare(sref,2147483648,a)
A2 = (mixed >= (false >> 1E+308))
A3 = zr
A4 =  +(t % false)
A5 = "quote\"q"
Name = "a100"

A0 = "x\"
A1 = undefined
Name = "a101"

A0 = "a'b"
A1 = (false ? 0.0025 : mixed)
Name = "a102"

A0 = "#no comment"
A1 = rt
A2 = "$(x)"
A3 = 1.5
A4 = ((sref < 10) << (0.1 || u))
A5 = "ümlaut"
Name = "a103"

A0 = (up & f)
A1 = "#no comment"
Name = "a104"

A0 = "slot1@host".y
A1 = "quote\"q"
A2 =  -strcat(up,e,undefined)
A3 = false
A4 = big
Name = "a105"

A0 = stringListMember(n.x.y,(0 / TARGET.Memory),tonly.y)
A1 = "$(x)"
A2 = TARGET.fl
A3 = (isList(MY.n.y[error]) - int(n.x))
A4 = Memory
Name = "a106"

A0 = false
A1 = "tab	here"
Name = "a107"

A0 = true
A1 = isError(Name.x)
A2 = (TARGET.lst / up)
Name = "a108"

A0 = 1E+308
A1 = MY.a
A2 = "ümlaut"
A3 = true
A4 = rt
A5 = "#no comment"
Name = "a109"

A0 = up
A1 = ((x ? false : TARGET.a) =?= max(strs))
A2 = "a\b"
A3 = ((10000000000.0 =?= TARGET.lst) >> isString(false))
Name = "a110"

A0 = "x\"
A1 = "$(x)"
A2 = 10
A3 = (toUpper( ~x) > ((true ? missing : undefined) == TARGET.missing))
A4 = "$(x)"
A5 = x
Name = "a111"

A0 = "a'b"
A1 = neg
A2 = TARGET.q
A3 = "\"
A4 = "quote\"q"
Name = "a112"

A0 = "quote\"q"
A1 =  -neg
Name = "a113"

A0 = "=="
A1 = tonly
Name = "a114"

A0 = (-9223372036854775807 & TARGET.Name)
Name = "a115"

A0 = "tab	here"
Name = "a116"

A0 = 0.0025
A1 = "$(x)"
A2 = true
Name = "a117"

A0 = { false,"a b" }.y
Name = "a118"

A0 = "#no comment"
A1 = "x\"
A2 =  ~((s ? error : MY.n.y) ? (undefined / 1.5) : e.Memory)
A3 = "<"
Name = "a119"

A0 = ((mixed.a ? versionGT(Name,1E+308) : 3.0) == zr)
A1 = 10
Name = "a120"

A0 = "a'b"
A1 = n
Name = "a121"

A0 = "tab	here"
A1 = n
A2 = (0.0025 <= zr)
A3 = TARGET.Name
Name = "a122"

A0 = "a'b"
A1 = "tab	here"
A2 = identicalMember(TARGET.fl,TARGET.fl.a)
Name = "a123"

A0 = "8.10.0"
Name = "a124"

A0 = undefined
A1 = "a'b"
Name = "a125"

A0 = splitSlotName(x)
Name = "a126"

A0 = TARGET.fl.a0[(splitSlotName(0.0) ? 2 : TARGET.q)]
A1 = ([  ].Memory ? (1.5 >> (10000000000.0 && missing)) : (0.1 >= 10)[zr[sref]])
Name = "a127"

A0 = "a b"
A1 = 2
Name = "a128"

A0 = "a'b"
Name = "a129"

A0 = "ümlaut"
Name = "a130"

A0 = (0 >> mixed)
A1 = "#no comment"
A2 = "quote\"q"
Name = "a131"

A0 = real({ n.x }.a)
Name = "a132"

A0 = 2147483648[(formatTime() & b[false])]
A1 = (false != (Arch[true] ? (true | TARGET.lst) : error))
A2 = true
Name = "a133"

A0 = "a\b"
A1 = ifThenElse( +(mixed <= n.y),{ "<" },l)
A2 = "$(x)"
A3 = "=="
A4 = "\"
Name = "a134"

A0 = "\"
A1 = ab
A2 = (1E+308 * 0.0025)
A3 = "a'b"
Name = "a135"

A0 = rt
A1 = 255
A2 = (versioncmp(strs,x) >= { b }.a)
Name = "a136"

A0 = isReal(255)
A1 = t[absTime(MY.n.y)]
A2 = 0.1
A3 = TARGET.fl
A4 = ( -(TARGET.Name ? MY.n.y : undefined) / (10000000000.0 * n))
Name = "a137"

A0 = mixed
Name = "a138"

A0 = error
A1 = "ümlaut"
A2 = "a\b"
A3 = error
A4 = TARGET.Name
Name = "a139"

A0 = true
Name = "a140"

A0 = MY.a
A1 = ( ~"%Y" =?= stringListSum(error))
A2 = x
Name = "a141"

A0 = (MY.s.a &  +1000)
A1 = "a\b"
Name = "a142"

A0 = "tab	here"
A1 = isString(TARGET.fl)
A2 = { "2.5",MY.n.y }.a
A3 = floor(MY.a)
A4 = Memory
A5 = undefined.x
Name = "a143"

A0 = "$(x)"
A1 = "$(x)"
A2 = "a b"
A3 = "a'b"
A4 = "#no comment"
Name = "a144"

A0 = (error && big)
A1 = "8.10.0"
A2 = s
A3 = "$(x)"
A4 = "x86_64"
Name = "a145"

A0 = ((undefined >>> a) ? mixed : (1E+308 != ""))
A1 = "x\"
A2 = "x\"
A3 = "ümlaut"
A4 = (neg << ((Memory >= -2.25) ? 0.1 : isReal(TARGET.Name)))
A5 = (TARGET.r == big)
Name = "a146"

A0 = "x\"
A1 = (-9223372036854775807 >= Arch)
A2 = MY.s
A3 = false
A4 = TARGET.fl
A5 = TARGET.Memory
Name = "a147"

A0 = "$(x)"
A1 = "#no comment"
Name = "a148"

A0 = sref
A1 = (false || 3.0)
A2 = length(error)
A3 = Name.Memory
Name = "a149"

A0 = "tab	here"
A1 = 10
A2 = Name
A3 =  +7
A4 = "ümlaut"
Name = "a150"

A0 = "quote\"q"
A1 = f
A2 = "^A"
A3 = big
A4 = ifThen(error,isInteger(-2.25))
Name = "a151"

A0 = "#no comment"
A1 = identicalMember((0.1 | Memory),isInteger(tonly))
A2 = sum(("a.*" == u))
A3 = "ümlaut"
A4 = ((0 != TARGET.Name) =!=  !TARGET.a)
Name = "a152"

A0 = "ümlaut"
Name = "a153"

A0 =  -TARGET.missing
A1 = "x\"
A2 = "a\b"
A3 = (((false % up) =!=  -strs) % ((true ? x : false) && "2.5"))
Name = "a154"

A0 = true
Name = "a155"

A0 =  +n.y[isError("a.*")]
A1 = int(identicalMember(1,true))
Name = "a156"

A0 = undefined
A1 = true
A2 = strs
Name = "a157"

A0 = TARGET.r
A1 = "a,b,c"
A2 = { true,(n * "a, b"),"8.10.0" }
A3 = TARGET.r
A4 = tonly
Name = "a158"

A0 = "#no comment"
Name = "a159"

A0 = error
A1 =  ~(MY.n.y =?= error)
Name = "a160"

A0 = ("a, b" =?= ab)
A1 = 10
A2 = strs
A3 = "x\"
A4 = (0.0 =?= identicalMember(TARGET.missing,a[3]))
A5 = strs
Name = "a161"

A0 = ((isBoolean("8.10.0") ? false[error] : TARGET.a[error]) ?  + +neg : (TARGET.lst[TARGET.r] ^ min(TARGET.missing)))
A1 = MY.n.y
Name = "a162"

A0 = (false ? MY.a : 0)
A1 = "quote\"q"
A2 = TARGET.Memory
A3 = undefined[-2.25]
Name = "a163"

A0 = versionGT("%Y",(false ^ 1000))
A1 = replace((2147483648 ? b : false),tonly,true.y,isString(1000))
A2 = TARGET.r
A3 = big
A4 = "a\b"
A5 = (-1 && stricmp((false < true),TARGET.Name["%Y"]))
Name = "a164"

A0 = -0.0[10[u]]
A1 = false
A2 =  ~error
A3 = Arch
A4 = ("a,b,c" | tonly)
A5 = "\"
Name = "a165"

A0 = "$(x)"
A1 = t
A2 = versioncmp((error + error), ~-2.25)[ !identicalMember("<",3.0)]
A3 = error
A4 = splitSlotName((unparse(10) =!= (error * 0)))
A5 = (allCompare(-2.25,false,Arch) ? -0.0 : MY.a)
Name = "a166"

A0 = 0
A1 = "$(x)"
A2 = ((-2.25 ? (error > true) : mixed) * round((-2.25 == undefined)))
A3 = (mixed % length(tonly))
A4 = "#no comment"
A5 = "quote\"q"
Name = "a167"

A0 = "tab	here"
A1 = true
A2 = (false || undefined)
A3 = (size(10) * toUpper(MY.n.y))
A4 = member(strs,false)
A5 = false
Name = "a168"

A0 = missing
A1 = (z[big] ? (t < mixed) : (MY.a && Memory))
Name = "a169"

A0 = error
A1 =  -strs[(error >> TARGET.q)]
A2 = ((true & identicalMember(undefined,Memory)) + (b % (Memory >>> error)))
A3 = 0
Name = "a170"

A0 = true
A1 = "a\b"
A2 = ("a, b" =!= big)
Name = "a171"

A0 = "$(x)"
A1 = { strs,tonly }.a
Name = "a172"

A0 = "quote\"q"
A1 = "$(x)"
A2 = ("a, b" >> -9223372036854775807)
A3 = "$(x)"
Name = "a173"

A0 = "quote\"q"
A1 = "<"[error]
A2 = "ümlaut"
A3 = TARGET.q[TARGET.Memory]
A4 = "a\b"
Name = "a174"

A0 = ((false <= up) + (s =!= e))
Name = "a175"

A0 = -1.5.a
A1 = up
Name = "a176"

A0 = -1E+308
A1 = "$(x)"
A2 = "a\b"
A3 = "#no comment"
Name = "a177"

A0 = (zr <= 0.0025)
A1 = toUpper(u)
Name = "a178"

A0 =  !f
A1 = (splitSlotName(Name[tonly]) != sign((n.x ? 10 : 1.5)))
A2 = formatTime()
A3 = (strs && 1)
Name = "a179"

A0 = rt
A1 = "#no comment"
A2 = (MY.s | TARGET.Memory)
A3 = 0.0025
A4 =  -s.a0
A5 = (255 < error)
Name = "a180"

A0 = "a\b"
A1 = 2
A2 = 1000
A3 =  +true.a0
A4 = 0.0
A5 = z
Name = "a181"

A0 = "a\b"
A1 = 1E+308
A2 = [ p0 = "a b"; q1 = TARGET.fl ].a
A3 = "$(x)"
Name = "a182"

A0 = ifThen(7,true)
A1 = "a'b"
A2 = TARGET.q
Name = "a183"

A0 = 3.0
A1 = true
Name = "a184"

A0 = MY.s
A2 = "ümlaut"
A3 =  -(TARGET.lst && Name)
A4 = TARGET.q
Name = "a185"

A0 = error
A1 = a
A2 = 2147483648
Name = "a186"

A0 = (stringListSum(up,anyCompare(undefined,mixed,f)) < interval(n)[(tonly =?= e)])
Name = "a187"

A0 = error
A1 = 3.0
Name = "a188"

A0 = "#no comment"
A1 = "x\"
A2 = ((neg != x) ^ (false ? "ABC" : -0.0))
A3 = "a'b"
A4 = "quote\"q"
Name = "a189"

A0 = undefined
A1 = "ümlaut"
Name = "a190"

A0 = error
A1 = up
Name = "a191"

A0 = n.x
A1 = 2
A2 = -0.0
A3 = big
Name = "a192"

A0 = b
A1 = false
A2 = (1E+308 <= big)
A3 = -0.0
A4 = big
Name = "a193"

A0 = "ümlaut"
A1 = formatTime(t.Memory)
Name = "a194"

A0 = 1E+308
A1 = "$(x)"
A2 = "x\"
Name = "a195"

A0 = neg
Name = "a196"

A0 = ifThenElse(error,0.1,0.0025)[neg["8.9.1"]]
Name = "a197"

A0 = "a'b"
A1 = rt
A2 = 0.0025
A3 = "ümlaut"
A4 = undefined
A5 = "a,b,c"[(s.a0 < false)]
Name = "a198"

A0 = "$(x)"
Name = "a199"

A0 = s
A1 = "x\"
A2 = 0.0
Name = "a200"

A0 = -9223372036854775807
A1 = (isInteger(undefined)[(TARGET.Memory ? 1E+308 : b)] ? ("a, b" + undefined) : isClassAd(MY.a[undefined]))
A2 = size(t)
A3 = "#no comment"
A4 =  !isString(error)
A5 = "a'b"
Name = "a201"

A0 = (interval(false) ? undefined : Name)["8.9.1"]
Name = "a202"

A0 = "tab	here"
A1 = (e && length(strs)[splitSlotName(TARGET.missing)])
A2 = "a'b"
Name = "a203"

A0 = "\"
Name = "a204"

A0 = "8.10.0"
A1 = undefined
A2 = b.y
A3 = "ümlaut"
A4 = (-1 ? 1000 : TARGET.Memory)
A5 = TARGET.q
Name = "a205"

A0 = "a\b"
Name = "a206"

A0 = 3.0[n]
A1 = "\"
A2 = "true"
Name = "a207"

A0 = "$(x)"
A1 = "quote\"q"
A2 = n.y
Name = "a208"

A0 = neg
A1 = 3
A2 = (ceiling(x) =?= (7 ? TARGET.lst : 10))
A3 = (3.0 =?= strs)
A4 = [ Memory0 = neg ]
A5 = {  }.x
Name = "a209"

A0 = "$(x)"
A1 = true
Name = "a210"

A0 = "2.5"
A1 = u
A2 = e
A3 = "a\b"
Name = "a211"

A0 = "$(x)"
A1 = "quote\"q"
A2 =  -[ a0 = 0.0 ]
A3 = (((MY.a =!= error) > ifThenElse(true,true,"a,b,c")) =!= isInteger((MY.a && 1)))
A4 = "a\b"
A5 =  !pow(0.0025,error)
Name = "a212"

A0 = true
A1 = "\"
A2 = 255
A3 = tonly
A4 =  -tonly
Name = "a213"

A0 =  +("a, b" != MY.n.y)
A1 = "\"
Name = "a214"

A0 = "a, b"[TARGET.missing]
A1 = "tab	here"
Name = "a215"

A0 = "a, b"
A1 = "$(x)"
Name = "a216"

A0 = strs
A1 = true
Name = "a217"

A0 = "$(x)"
A1 = b
A2 = stringListMember(0.0,false)
A3 = MY.s
A4 = (MY.s <= false)
Name = "a218"

A0 = "x\"
A1 = 0.1
A2 = replace((b >> "2.5"),TARGET.a,TARGET.lst)
A3 = "$(x)"
A4 =  +TARGET.lst
Name = "a219"

A0 = "a\b"
A1 = -0.0
A2 = "a\b"
A3 = "tab	here"
A4 = "x\"
A5 = "ümlaut"
Name = "a220"

A0 = 255
A1 = "\"
A2 = -0.0
Name = "a221"

A0 = "a.*"
A1 = split("abc")
A2 = [  ].Memory
A3 = "a,b,c".x
Name = "a222"

A0 = "a'b"
A1 = 1.5
A2 = "x\"
A3 = true
A4 = stricmp(n.y,10000000000.0)
Name = "a223"

A0 = (undefined == "abc")
A1 = zr
A2 = "\"
A3 = (toUpper(versionGT(1.5,1000)) | t)
Name = "a224"

A0 = tonly
A1 = (real(true.a) - (-0.0 + true)[TARGET.Memory])
A2 = Name
A3 = (TARGET.lst * MY.s)
A4 = 0.1.a0
Name = "a225"

A0 = n.x
A1 = "$(x)"
A2 = rt
A3 =  !error
A4 = "tab	here"
A5 = "2.5"
Name = "a226"

A0 = rt.y
Name = "a227"

A0 = 1
A1 = toLower(TARGET.Name)
Name = "a228"

A0 = ((n.x ? 3 : Name) != Memory)
A1 = ("8.9.1" / false)
A2 = ("a,b,c" + error)
A3 = true
A4 = "ümlaut"
Name = "a229"

A0 = true
Name = "a230"

A0 = "x\"
A1 = "x\"
Name = "a231"

A0 = MY.n.y
A1 = n.x
Name = "a232"

A0 = TARGET.a.Memory
A1 = "a'b"
A2 = "ümlaut"
A3 = size(("1" - false))
A4 = "tab	here"
Name = "a233"

A0 = u
A1 = s.a
Name = "a234"

A0 = undefined
A1 = f.Memory
Name = "a235"

A0 = "#no comment"
A1 = MY.n.y
A2 = "quote\"q"
Name = "a236"

A0 = stricmp(TARGET.missing,-1)
Name = "a237"

A0 = (0.1 ^ TARGET.fl)
A1 = 1E+308
A2 = "a'b"
A3 = u
A4 = "#no comment"
Name = "a238"

A0 = undefined
A1 = true
A2 = 3.0
A3 = "tab	here"
A4 = strs
A5 = "a'b"
Name = "a239"

A0 = u
A1 = ceiling(("%Y" >= neg))
A2 =  -x[(stringListSize(n.y,undefined) ? TARGET.r : { Memory,error }.a)]
A3 = "#no comment"
Name = "a240"

A0 = "a'b"
Name = "a241"

A0 = "\"
Name = "a242"

A0 = (relTime(stringListIMember(neg,missing)) >>  +3)
A1 = error[((missing =!= rt) && undefined)]
A2 = 1.5
A3 = "a\b"
A4 = "a'b"
A5 = false
Name = "a243"

A0 = ("^A" || TARGET.Memory)
A1 = false
A2 = "$(x)"
Name = "a244"

A0 = "x\"
A1 = "#no comment"
A2 = "a'b"
A3 = "$(x)"
Name = "a245"

A0 = f
Name = "a246"

A0 = isString(TARGET.q)
A1 = "\"
Name = "a247"

A0 = "#no comment"
A1 = countMatches("^A",mixed)
A2 = { 0.1.a0,(error.a < ("ABC" ? b : "8.9.1")) }
A3 = sign(TARGET.Name)
A4 = tonly
A5 = 1
Name = "a248"

A0 = sign("2.5")
Name = "a249"

A0 = (true ?  !TARGET.missing : undefined)
Name = "a250"

A0 = regexp(n.x,10000000000.0,TARGET.missing)
A1 = "x\"
A2 = ((n.x / u) <= (0.0025 >>> f))
A3 = TARGET.Memory
A4 = (("a, b" | 3.0) > ifThen(false,0.1))
A5 = (1E+308 == false)
Name = "a251"

A0 = (isReal(("a, b" && x)) ? (ceiling(undefined) * n.y[TARGET.Name]) : (true &  !255))
A1 = a
Name = "a252"

A0 = true[x]
A1 = u
A2 = TARGET.Name
A3 = "\"
Name = "a253"

A0 = (true % rt)
A1 = "<"
A2 = (tonly | false)
A3 = interval(true.Memory)[((-1 >= TARGET.fl) && ab[TARGET.Name])]
A4 = "a\b"
A5 = e.Memory
Name = "a254"

A1 =  !stringListIMember(ab,error)
Name = "a255"

A0 = avg(ab)
A1 = n.y
A2 = ceiling((1 * TARGET.a))
A3 = "$(x)"
Name = "a256"

A0 = 2147483648
A1 = (f > TARGET.a)[2[1E+308]]
A2 = isError(undefined)
Name = "a257"

A0 = "\"
A1 = [  ]
A2 =  -big
A3 = error
A4 = strcat()
A5 = "tab	here"
Name = "a258"

A0 = "ümlaut"
A1 = sref
A2 = strcat((true =!= 1),(TARGET.fl ? true : undefined))
A3 = 255
A4 = max(7)
Name = "a259"

A0 = stringListSize(TARGET.r,Memory)
A1 =  !-1
A2 = "\"
A3 = ("" =!= -0.0)
A4 = "$(x)"
A5 = "a'b"
Name = "a260"

A0 = (min(TARGET.Memory) =?= (undefined * 255))
A1 = sref
A2 = a
A3 = up
A4 = "quote\"q"
A5 = TARGET.missing
Name = "a261"

A0 = "a'b"
A1 = error
A2 = (TARGET.q + 2)
A3 = (("a b".a >>> (1.5 =!= 7)) && false)
A4 = "ümlaut"
Name = "a262"

A0 = undefined
A1 = "#no comment"
A2 = TARGET.missing
Name = "a263"

A0 = -0.0
A1 = undefined
A2 = TARGET.r
A3 = 255
A4 = (rt ? { error,true }.x : n)[int(error)]
Name = "a264"

A0 = "quote\"q"
Name = "a265"

A0 = true
A1 = TARGET.missing
Name = "a266"

A0 = "#no comment"
A1 = (true ? -9223372036854775807 : 3.0)
A2 = ifThenElse(up,true,( +0.0025 * true))
A3 = "a,b,c"
A4 = (7 / up)
A5 = "$(x)"
Name = "a267"

A0 = { -0.0,(versioncmp("<",1) + l),((f | mixed) <= versionGT(2,"%Y")) }
A1 = "tab	here"
A2 = { "a b",10,l }.a0
A3 = (true ? -1 : TARGET.q)
A4 = (isReal(tonly) <= "8.9.1")
Name = "a268"

A0 = (ifThen(-0.0,3) ?  !0.1 : Arch)
Name = "a269"

A0 = TARGET.r
A1 = n
A2 = true
A3 = "a.*"
A4 = "a\b"
Name = "a270"

A0 = false
A1 = "#no comment"
A2 = unparse("a.*")
A3 = "abc"
A4 = false
Name = "a271"

A0 = t
A1 = "quote\"q"
A2 = "#no comment"
Name = "a272"

A0 = "$(x)"
A1 = (false[error] > -0.0[1E+308])
Name = "a273"

A0 = "ümlaut"
A1 = "\"
A2 = "x\"
A3 = "a'b"
Name = "a274"

A0 = max(TARGET.lst)
A1 = undefined
A2 = "$(x)"
A3 = b
A4 = ifThenElse(error,missing,error)[a]
Name = "a275"

A0 = (2 ? (member(missing,TARGET.r) | f) : ("a.*" > l)[error])
A1 = "#no comment"
A2 = "ümlaut"
Name = "a276"

A0 = mixed
A1 = t
Name = "a277"

A0 = "ümlaut"
A1 = 1E+308
A2 = min(error)
A3 = x
A4 = error.a0
A5 = TARGET.missing
Name = "a278"

A0 = "ümlaut"
A1 = "quote\"q"
A2 = size(MY.s)
A3 = a
A4 = (neg ^ (undefined[TARGET.lst] <<  +TARGET.Memory))
A5 = MY.s
Name = "a279"

A0 = (big >> big)
A1 = b
Name = "a280"

A0 =  !(zr || mixed)[2147483648]
A1 = "x\"
A2 = ((true + Arch) ? x : ("slot1@host" & -1))
A3 = "\"
A4 = "a'b"
A5 = -0.0
Name = "a281"

A0 = regexps((t =?= neg),0.1,isString(missing),stringListSize("2.5",Memory))
A1 = "#no comment"
Name = "a282"

A0 =  ~(error ? false : TARGET.a)
Name = "a283"

A0 = ((2 > TARGET.lst) ? Arch : undefined)
A1 = "a'b"
Name = "a284"

A0 = "\"
A1 = Name
A2 = "#no comment"
A3 =  -strs[1.5]
A4 = n
A5 = zr
Name = "a285"

A0 = e
Name = "a286"

A0 = big[ -TARGET.fl]
A1 = "$(x)"
A2 =  ~2147483648
A3 = (true[substr(false,"abc",Arch)] / a)
A4 = max(error)
A5 =  +"1"
Name = "a287"

A0 = { (strs == u),TARGET.q,{ TARGET.lst,false,l }.x }
A1 = (TARGET.Name ^ 10)
A2 = undefined.x
Name = "a288"

A0 = "ümlaut"
Name = "a289"

A0 = "quote\"q"
A1 = false
A2 =  !(true ^ "slot1@host")
A3 = "a, b"
Name = "a290"

A0 = ((true > true) != 0.0025)
A1 = (n.y >= splitSlotName( ~0.0025))
A2 = ab
Name = "a291"

A0 = "8.9.1"
A1 = (error << TARGET.missing)
A2 = zr
A3 = 7
Name = "a292"

A0 = (sref <= false)
A1 = [ a1 = missing; q0 = TARGET.a ]
A2 = "x\"
Name = "a293"

A0 = "quote\"q"
A1 = "tab	here"
Name = "a294"

A0 = (0 =?= 7)
A1 = ( !0.0 <= (true >> sref))
A2 = sum({ missing,0,1.5 }.a)
Name = "a295"

A0 = MY.a
A1 = "$(x)"
A2 = f
A3 = "ümlaut"
A4 = regexp(error,2,n.y)
A5 = isError(TARGET.Memory)
Name = "a296"

A0 = "ümlaut"
A1 = countMatches("=="[z][(undefined ? 1.5 : 10)],false.y)
A2 = n
A3 = 7
Name = "a297"

A0 = tonly
A1 = (((sref & 1.5) +  ~strs) <= n.y)
A2 = "#no comment"
A3 = "a\b"
A4 = (true.a0 ||  !MY.a)
Name = "a298"

A0 = "$(x)"
A1 = 2147483648
A2 = l
A3 = "$(x)"
A4 = ((1.5 <= up) % (TARGET.a << n.y))
Name = "a299"

A0 = ceiling(((undefined >> f) >= 3.0))
A1 =  +(mixed == strs)
Name = "a300"

A0 = pow(TARGET.lst,10000000000.0)
A1 = 3.0
A2 = "\"
A3 = "tab	here"
A4 = ("slot1@host" * 10000000000.0)
Name = "a301"

A0 = false
A1 = ab
A2 = Arch
Name = "a302"

A0 = "ümlaut"
A1 = l
Name = "a303"

A0 = int(rt)
A1 = tonly
A2 = TARGET.r
Name = "a304"

A0 = "2.5"
A1 = (true || MY.a)
Name = "a305"

A0 = isUndefined(ab)[ -MY.n.y]
Name = "a306"

A0 = "a.*"
A1 = missing
A2 = ((("%Y" || 1) >> big) ? ((false < -9223372036854775807) & versionGT(TARGET.Memory,2147483648)) : up)
Name = "a307"

A0 = (join("abc") && false)
A1 = true
Name = "a308"

A0 = "x\"
A1 = false
A2 = "quote\"q"
A3 = n.y
A4 =  ~-0.0
Name = "a309"

A0 = toLower(((sref ? false : s) >> (TARGET.Memory > up)))
A1 =  !ifThen("a,b,c",(7 ? -1 : s))
Name = "a310"

A0 = false
Name = "a311"

A0 = (e && anyCompare("true".a,("a,b,c" > Arch),2147483648))
A1 = "tab	here"
A2 = "x\"
Name = "a312"

A0 = Name
A1 = 1E+308.a
A2 = "quote\"q"
Name = "a313"

A0 = 255
A1 = "a'b"
A2 = "<"
A3 = (1.5[true] <= error.a)
A4 = (n != 0)
Name = "a314"

A0 = error
A1 = eval(isList(MY.s))
Name = "a315"

A0 = b.Memory
A1 = "x\"
A2 = "a,b,c"
A3 = "ümlaut"
A4 = "a\b"
A5 = mixed
Name = "a316"

A0 = [  ].x
A1 = false
A2 = (MY.n.y ? Arch : 0.1)
A3 = "ümlaut"
A4 = TARGET.lst.y
Name = "a317"

A0 = 0.0025
A1 = "x\"
A2 = (zr << 7)
Name = "a318"

A0 = "a'b"
A1 = (false + error)
A2 =  +false.a0
A3 = TARGET.Memory
A4 = isInteger(TARGET.fl)
Name = "a319"

A0 = max(TARGET.a)
A1 = "a\b"
A2 = min((2 ? Arch : u))
A3 = sign((mixed && TARGET.a))
A4 = 2147483648
Name = "a320"

A0 = "x\"
A1 = true
Name = "a321"

A0 = "quote\"q"
Name = "a322"

A0 = "ümlaut"
Name = "a323"

A0 = ((error =?= Name[true]) - error.y)
A1 = t[tonly][ !TARGET.a]
A2 = toLower(ceiling(10))
A3 = neg
A4 = {  }
Name = "a324"

A0 = rt.Memory
A1 = "#no comment"
A2 = 1E+308
A3 = undefined
A4 = z
A5 = "tab	here"
Name = "a325"

A0 = TARGET.a
A1 = "^A"
A2 = "tab	here"
A3 = "tab	here"
A4 = Arch
A5 = "\"
Name = "a326"

A0 = (1000 ? 2147483648 : false)
A1 = "$(x)"
A2 = n.x
A3 = "tab	here"
A4 = sum((error <= "x86_64"))
A5 = (true =!= true)
Name = "a327"

A0 = versioncmp(evalInEachContext((n.y ^ rt),e),(undefined % quantize(1.5,"abc")))
A1 = true
A2 = stringListsIntersect(TARGET.Name,0.0)
Name = "a328"

A0 = tonly
A1 = 1.5
A2 = TARGET.lst
A3 = rt
A4 = 2147483648
Name = "a329"

A0 = "\"
A1 = "^A"
A2 = error
A3 = (missing >> n.x)
A4 = "ümlaut"
A5 = (10 * ((false >= TARGET.Name) == TARGET.r))
Name = "a330"

A0 = "tab	here"
A1 = "tab	here"
A2 = isClassAd(ab.Memory)
A3 = "8.10.0".x
Name = "a331"

A0 = strs["a,b,c"]
A1 = 0.1
Name = "a332"

A0 = "a'b"
A1 = tonly
A2 = "#no comment"
A3 = "tab	here"
Name = "a333"

A0 = (false * up)
A1 = allCompare(TARGET.r,(2 ? evalInEachContext(1.5,error) : (MY.a | 3.0)),(tonly["^A"] =?= 7))
A2 = "$(x)"
A3 = neg.a
A4 = "x\"
A5 = "x\"
Name = "a334"

A0 = big
A1 = "#no comment"
A2 = stringListMember(replace("<",10,u),ceiling(e))
A3 = n.x
A4 = "#no comment"
Name = "a335"

A0 = versionGT(f,(mixed * -1))
A1 = "a\b"
A2 = (n.x || 1000)
Name = "a336"

A0 = "ümlaut"
A1 = u
A2 = "a\b"
A3 = true
A4 = undefined
Name = "a337"

A0 = (avg(TARGET.missing) =!= TARGET.missing)
Name = "a338"

A0 = 3
Name = "a339"

A0 = "tab	here"
Name = "a340"

A0 = ifThen(string(n.y),(u << false))
A1 = (3 - x)
A2 = -1
A3 = "a'b"
Name = "a341"

A0 = ("a b" ? MY.a : missing)
A1 = TARGET.q.a
Name = "a342"

A0 = TARGET.missing
A1 = (isBoolean(error) + false)
A2 =  ~strcmp(TARGET.missing,0.0)
Name = "a343"

A0 = isBoolean((b ? "1" : f))
A1 = strcat(( +a ? "a b" : "%Y".y),{ (missing >= TARGET.Memory) },(missing == 0.1))
A2 = "a\b"
A3 = (mixed >>> absTime(stringListIMember("1",strs),isString(true)))
A4 = absTime(( !TARGET.a * (0 =?= TARGET.a)))
Name = "a344"

A0 = 1.5
A1 = { undefined }.y
A2 = ( !TARGET.Memory != undefined[up][(z ? 0.0 : "a, b")])
A3 = -0.0
A4 = (TARGET.lst ? TARGET.q : Memory)
Name = "a345"

A0 = missing
A1 = TARGET.Name
A2 = "$(x)"
A3 = TARGET.missing
A4 = (n.x =?= identicalMember(f,7))
A5 = "tab	here"
Name = "a346"

A0 = (MY.s < error)
A1 = ifThenElse(Arch,MY.n.y,l)
Name = "a347"

A1 = stringListMember(isReal(a),1,(-2.25 =!= neg))
A2 = "a b"
A3 = "ABC"
Name = "a348"

A0 = (false ||  ~identicalMember(x,error))
A1 =  !f
A2 = ((strs <= Memory)[ ~"ABC"] >>> ((sref ? big : 3.0) |  !10))
A3 = (TARGET.missing == n.y)
A4 = toLower(identicalMember((TARGET.Name < error),7["1"]))
Name = "a349"

A0 = (size(TARGET.lst) >> toUpper(-9223372036854775807))
Name = "a350"

A0 = MY.a
A1 = "#no comment"
A2 = "slot1@host"[0.1]
A3 = (n.y << isInteger( +b))
A4 = "a b"
A5 = Arch
Name = "a351"

A0 = "quote\"q"
A1 = "a\b"
A2 = "quote\"q"
A3 = tonly
A4 = string(b)
Name = "a352"

A0 = true
A1 = undefined
A2 = "#no comment"
A3 = stringListMember(((-2.25 | undefined) || (true != up)),evalInEachContext(identicalMember("abc",3),(10000000000.0 & big)),countMatches(undefined,"1"))
A4 = countMatches((("a.*" ? undefined : TARGET.Memory) + 3.0),mixed.x[(n.y == TARGET.r)])
A5 = neg
Name = "a353"

A0 = s
A1 = (n.y >>> "<")
A2 = l
A3 = TARGET.a
A4 = "$(x)"
A5 = versionGT((Arch <= tonly),(MY.n.y <= 2))
Name = "a354"

A0 = "x\"
A1 = ( +2147483648 =!= TARGET.Memory)
A2 = "a b"
A3 = "#no comment"
Name = "a355"

A0 = 3.0.x
A1 = 1000
A2 = undefined
A3 = error
A4 = zr
Name = "a356"

A0 = Memory
A1 = "<"
A2 = floor((true >> "a, b"))
Name = "a357"

A0 = ( +(undefined ? -0.0 : TARGET.lst) && TARGET.a)
A1 = "tab	here"
A2 = (false / { e,MY.n.y }.Memory)
A3 = "#no comment"
A4 = zr
Name = "a358"

A0 = undefined
A1 = (strs < neg)
Name = "a359"

A0 = "x\"
A1 = "a'b"
A2 = (((mixed ? true : undefined) >= 2) < min( !error))
A3 = (up ? undefined : 10000000000.0)
A4 =  -isBoolean(n.y)
A5 = TARGET.r
Name = "a360"

A0 = MY.n.y
A1 = "quote\"q"
A2 = undefined
A3 = false
Name = "a361"

A0 = ((interval(1E+308) % (true ? true : false)) ? ({ Name }.a0 =?= n) : (2 + unparse(-0.0)))
A1 = "\"
A2 = "\"
Name = "a362"

A0 = countMatches(error,t)
Name = "a363"

A0 = "ümlaut"
A1 = -9223372036854775807
Name = "a364"

A0 = 3.0
Name = "a365"

A0 =  !10
Name = "a366"

A0 = "tab	here"
Name = "a367"

A0 = "=="
A1 = Name
A2 = "$(x)"
A3 = "quote\"q"
A4 = (Memory * false)
A5 = x
Name = "a368"

A0 = "quote\"q"
A1 = "".y
A2 = "x\"
A3 = 1.5
A4 = (false % "slot1@host")
Name = "a369"

A0 = (-0.0 == (true && b))[stricmp( ~Name,(0.0 / 3))]
A1 = "#no comment"
Name = "a370"

A0 = (absTime(true) <= substr(Arch,TARGET.Memory))
A1 = ("a.*" == neg)
A2 = "a\b"
A3 = "\"
Name = "a371"

A0 = "quote\"q"
A1 = "tab	here"
A2 = ab["%Y"]
A3 = (((0.0025 / up) / (sref =?= tonly)) > error)
A4 = "<"
Name = "a372"

A0 = "a'b"
Name = "a373"

A0 = "a'b"
A1 = (0.1.a & regexps("%Y",sref,neg))
A2 = l
A3 = "a'b"
A4 = MY.a
A5 = MY.a
Name = "a374"

A0 = false[z]
A1 = interval(undefined)
A2 = "x\"
A3 = "$(x)"
A4 = split({ 255,-1 }.y)
Name = "a375"

A0 = ((3 =?= x) | (tonly >> ""))
A1 = n.x
A2 = (x >= TARGET.q)
A3 = split(n.x,false)
Name = "a376"

A0 = "tab	here"
A1 = TARGET.Name.x
A2 = 7
Name = "a377"

A0 = ((("8.10.0" ? b : false) =!=  -TARGET.Name) =!= neg)
A1 = (-2.25 =!=  !"%Y")
A2 = "x\"
A3 = "<"["<"]
A4 = TARGET.a
A5 = "quote\"q"
Name = "a378"

A0 = "a\b"
A1 = "a'b"
A2 = -0.0.a
A3 = (error == n)
Name = "a379"

A0 = "tab	here"
A1 = -0.0
A2 = (10 / error)
A3 = error
Name = "a380"

A0 = undefined
A1 = "a'b"
A2 = TARGET.q
Name = "a381"

A0 = "quote\"q"
A1 = ("slot1@host" =?= u)
A2 = "^A"
A3 = false
A4 = "a\b"
A5 = "a\b"
Name = "a382"

A0 = "quote\"q"
A1 = "#no comment"
A2 = error
Name = "a383"

A0 = "ümlaut"
A1 = (0.0025 >>> error)
A2 = string(pow(1E+308,TARGET.a))
Name = "a384"

A0 = [ Memory0 = 0.0 ]
Name = "a385"

A0 = Name
A1 = 255
Name = "a386"

A0 = "#no comment"
A1 = MY.s
A2 = zr
A3 = (10000000000.0 ? u : error)
Name = "a387"

A0 = error
A1 = (stringListsIntersect((rt ? n.y : TARGET.a),TARGET.q) =!= (-1 >>> "<"))
A2 = "<"
A3 = big
A4 = s
Name = "a388"

A0 = isReal(1[error])
A1 = undefined
A2 = z
A3 = "ümlaut"
A4 = (strcat(MY.a) =!= x)
Name = "a389"

A0 = "quote\"q"
Name = "a390"

A0 = (f << z)
A1 = "quote\"q"
A2 = (("^A" ? up : z) - "8.9.1".y)
A3 = formatTime({ 255,0.1 })
Name = "a391"

A0 = TARGET.lst
A1 = (Arch ? 3 : 0.1)
Name = "a392"

A0 = TARGET.fl
A1 = false
A2 = missing
A3 = strs
A4 = evalInEachContext(stricmp(Memory,n.x),(neg >> error))
A5 = e
Name = "a393"

A0 = (true ? f : neg)
A1 = n.x
A2 = 0.0
A3 = missing
A4 = length(((Name ? error : "^A") =?= 1000))
Name = "a394"

A0 = error
Name = "a395"

A0 = x
Name = "a396"

A0 = undefined
A1 = "x\"
A2 = true
A3 = undefined
Name = "a397"

A0 = MY.s
A1 = [ q1 = l; Memory0 = true ]
A2 = "1"
A3 = ((x[1000] < s) ? (-1[l] >= false.a) : (n.x - "1"))
A4 = "\"
Name = "a398"

A0 = MY.a
Name = "a399"

A0 = MY.s
A1 = "#no comment"
A2 = n.x
A3 = "\"
A4 = undefined
Name = "a400"

A0 = "quote\"q"
A1 = "\"
A2 = "quote\"q"
A3 = (( ~TARGET.q <= "") > n.x)
Name = "a401"

A0 = size(TARGET.r)
A1 = "#no comment"
A2 = "$(x)"
A3 = "a'b"
A4 = ((unparse(undefined) %  !TARGET.r) =!= ({ "<" }.a0 && (TARGET.Memory ? "^A" : TARGET.a)))
A5 = "a\b"
Name = "a402"

A0 = TARGET.missing
A1 = stricmp((Arch[n] && real(up)),n.x.x)
A2 = "ümlaut"
Name = "a403"

A0 = "#no comment"
A1 = -9223372036854775807
Name = "a404"

A0 = strcat((z < -9223372036854775807),(Name >> error),n.x)
A1 = "a\b"
Name = "a405"

A0 = isClassAd((MY.a ? (f ? e : true) : (n.y || TARGET.lst)))
Name = "a406"

A0 = [ p0 = f ].a0[("slot1@host" / (n | false))]
A1 = Name
A2 =  +false
A3 = t
Name = "a407"

A0 = (isClassAd(b) && (n.y & true))
Name = "a408"

A0 = (up <= 10[error])
Name = "a409"

A0 =  +absTime(true,10)
A1 = -0.0
Name = "a410"

A0 = absTime((TARGET.r << b),1E+308.Memory)
A1 = "x\"
A2 = substr(strs,error,"ABC")
A3 = "ümlaut"
A4 = 7
Name = "a411"

A0 = true
A1 = ("true" != 2)
A2 = up
A3 = ("true" - f)
A4 = "quote\"q"
Name = "a412"

A0 = (strs =?= replace(neg,TARGET.a,2,sref))
A1 = "quote\"q"
A2 = rt.a
Name = "a413"

A0 = mixed
A1 = (false ? n : n)
Name = "a414"

A0 = strs
A1 = ((undefined || TARGET.fl) == sref[2])
A2 = "<"
Name = "a415"

A0 = "a'b"
A1 = "x\"
Name = "a416"

A0 = (string("") =?= interval(true))
Name = "a417"

A0 = (e[MY.a] > real(n.x))
A1 = "<"
A2 = TARGET.q
A3 = splitSlotName(missing)[(n.x - 1)][MY.n.y]
A4 = "$(x)"
Name = "a418"

A0 = ceiling(0.1)
A1 = (up[false.Memory] + -2.25)
Name = "a419"

A0 = "$(x)"
A1 = "\"
A2 = "quote\"q"
A3 = "=="
A4 = f
Name = "a420"

A0 = 10
A1 = "$(x)"
A2 = versionGT(tonly,n.x)
Name = "a421"

A0 = "a'b"
A1 = "x\"
A2 = "x\"
A3 = "#no comment"
A4 = (undefined * 2)
Name = "a422"

A0 =  +(1.5 && MY.s)
A1 = 0.0
Name = "a423"

A0 = s
A1 = "a\b"
A2 = isList("a.*")
A3 = true
A4 = ( +false >= (-1 =!= z))
Name = "a424"

A0 = TARGET.missing
A1 = (x | "abc")
A2 = "\"
Name = "a425"

A0 = ((x ? error : "1") | 0.0["8.10.0"])
A1 = "quote\"q"
A2 = "$(x)"
Name = "a426"

A0 = length( +TARGET.fl)
Name = "a427"

A0 = ( +a || ((false & rt) >> evalInEachContext(0,TARGET.r)))
A1 = "\"
A2 = "x\"
A3 = "ümlaut"
A4 = "2.5"
A5 = "$(x)"
Name = "a428"

A0 = TARGET.Name
A1 = "#no comment"
A2 = false.a
A3 = tonly
A4 = "x\"
Name = "a429"

A0 =  -(identicalMember(tonly,2147483648) ? (3 - a) : (sref >= ""))
A1 = ((rt =!= n.x) && TARGET.fl)
Name = "a430"

A0 = (2 ? mixed["8.9.1"][(Memory ^ true)] : (Memory & 0)[(true && false)])
A1 = {  }
Name = "a431"

A0 = "a\b"
A1 = "quote\"q"
A2 = (0.0025 ? ("a b" =!= MY.n.y) : (undefined - sref))
A3 = 1.5
A4 = 3
A5 = "a'b"
Name = "a432"

A0 = "ümlaut"
A1 = TARGET.Name
A2 = anyCompare((n.x | e),("a.*" < "abc"),stringListMember(b,undefined))
A3 = "#no comment"
Name = "a433"

A0 = floor(error)
A1 = "a,b,c"
A2 = "ümlaut"
Name = "a434"

A0 = 1
A1 = "tab	here"
A2 = n.y
A3 = error.a0
A4 = "$(x)"
A5 = "a'b"
Name = "a435"

A0 = TARGET.r
A1 = (n["%Y"] >>> z)
A2 = undefined[missing]
A3 = (ab ? undefined : u)
A4 = "<"
Name = "a436"

A0 = "a.*"
Name = "a437"

A0 = ifThenElse((false - tonly),n[Memory], ~n)
A1 = "a\b"
A2 = regexps(TARGET.Name[3],interval(Memory),"slot1@host".x,(undefined =?= 3))
A3 = false
A4 = 1000
Name = "a438"

A0 = 3
A1 = "tab	here"
A2 = "a'b"
Name = "a439"

A0 = "ümlaut"
A1 = "a\b"
A2 = "tab	here"
A3 = "\"
A4 = l
Name = "a440"

A0 = "tab	here"
A1 = stringListSize( ~TARGET.a)
A2 = false
A3 = ("^A".a0 / 0)
A4 = "a'b"
A5 = "quote\"q"
Name = "a441"

A0 = (10000000000.0 || f)
A1 = "ümlaut"
A2 = isError(replace(1E+308.a0,0.0025.a0,isString("")))
Name = "a442"

A0 = "\"
A1 = sign(relTime())
A2 = error
A3 = "x\"
Name = "a443"

A0 = ("a.*" - true)
A1 = "\"
Name = "a444"

A0 = "quote\"q"
A1 = [  ]
A2 = "a\b"
A3 = TARGET.missing.y
A4 = sref
Name = "a445"

A0 = member(a,TARGET.r)
Name = "a446"

A0 = "ümlaut"
A1 = (undefined - (3 || 1))
A2 = e.y
A3 = isError(2)
A4 = (tonly != rt)
A5 = "tab	here"
Name = "a447"

A0 = "quote\"q"
A1 = TARGET.missing
Name = "a448"

A0 = ((l || undefined) =!= 1E+308[error])
A1 = "ümlaut"
Name = "a449"

A0 = strs
A1 = "x\"
A2 = "#no comment"
A3 = u
Name = "a450"

A0 = true
A1 = "\"
A2 = "a\b"
A3 = "ümlaut"
A4 = (versioncmp(TARGET.r,n.y) && (tonly ? n.y : TARGET.Name))
Name = "a451"

A0 = "=="
Name = "a452"

A0 = (Memory <= rt)
A1 = x
A2 = (error == (0.0025 >= n.x))
A3 = "^A"
A4 = u[TARGET.q]
A5 = TARGET.fl
Name = "a453"

A0 = TARGET.a
A1 = int(b)
A2 = Name
Name = "a454"

A0 = "2.5"
A1 = "quote\"q"
Name = "a455"

A0 = 10
A1 = "\"
A2 = "a'b"
A3 =  -true
A4 = string(missing)
Name = "a456"

A0 = "quote\"q"
A1 = "a'b"
Name = "a457"

A0 = undefined
A1 = n.x
A2 = "=="
A3 = "ümlaut"
A4 = ((Name == error) -  +(up =!= 1))
Name = "a458"

A0 = "x\"
A1 = ((MY.a[undefined] >= (false || mixed)) == join(n.x))
A2 = up
A3 = strs
Name = "a459"

A0 = 3.0
A1 = mixed
A2 = (undefined ^ substr( ~sref,regexp(TARGET.Memory,1)))
A3 = 2[n.y[0.1]]
Name = "a460"

A0 = 3.0
A1 = "tab	here"
A2 = "a'b"
A3 = (formatTime(true,s) ? stringListIMember(TARGET.a,10000000000.0) : (true == ""))
A4 = "a,b,c"
A5 = n.y
Name = "a461"

A0 = "\"
Name = "a462"

A0 = "ümlaut"
A1 = strs
A2 = ( !(e + error) =!= (("8.9.1" || x) =?= (0.1 ? "==" : 0.1)))
A3 = 10000000000.0
A4 = "x\"
Name = "a463"

A0 = false
Name = "a464"

A0 = true
A1 = l
A2 = "#no comment"
Name = "a465"

A0 = u
A1 = 0.0
A2 = 255
Name = "a466"

A0 = isInteger(TARGET.missing)
A1 = ""
A2 =  + +-9223372036854775807
A3 = (missing * TARGET.fl)
A4 = ((undefined =?= split(TARGET.fl,-2.25)) >>> ((false =?= false) >>> l))
Name = "a467"

A0 = (TARGET.Name > error)
Name = "a468"

A0 = (n.x == Memory)
A1 = "quote\"q"
A2 = "$(x)"
A3 = error
A4 = "%Y"
A5 = "quote\"q"
Name = "a469"

A0 = tonly
A1 = ("%Y" == strs)
A2 = "$(x)"
A3 = "a'b"
A4 = TARGET.a
A5 = ifThen((mixed * n),stringListSize(n.y,undefined))
Name = "a470"

A0 = f
A1 = -1
A2 = ((sref =?= s) == (strs ? undefined : 1000))
A3 = "a'b"
A4 = (0.0 <= sref)
A5 = 2[eval(x)]
Name = "a471"

A0 = false
A1 = "\"
A2 = (ifThenElse(sref,u,Memory) < (3.0 =?= zr))
A3 = (isString(missing) * TARGET.Memory[undefined])[((n =!= a) ^ (l < false))]
A4 = "a'b"
A5 = (0.0 == error)
Name = "a472"

A0 = (((t | f) > (undefined <= "1")) & stringListIMember(undefined,TARGET.fl,"")[s])
A1 = rt
A2 = "$(x)"
Name = "a473"

A0 = (f ? [  ] : interval(TARGET.q))
A1 = "#no comment"
A2 = "$(x)"
A3 = "a'b"
A4 = false
Name = "a474"

A0 = TARGET.Memory.a0
A1 = "tab	here"
A2 = "a\b"
Name = "a475"

A0 = (((x * TARGET.fl) ? (t >> z) : (Arch / error)) ? (error | false)[255] : stringListMember(isString(-0.0),n.y))
Name = "a476"

A0 = error
Name = "a477"

A0 = missing
A1 = n.y
A2 = "a'b"
A3 =  !((false || undefined) + (TARGET.r >>> rt))
A4 = ({ false,undefined }.a0 ?  ~ +1E+308 : f)
Name = "a478"

A1 = MY.a
A2 = replace(0.0,false,a)
A3 = (10000000000.0 == ab)
Name = "a479"

A0 = "a\b"
Name = "a480"

A0 = sref
Name = "a481"

A0 = TARGET.q
A1 = "x\"
A2 = "quote\"q"
Name = "a482"

A0 = false
A1 = "a'b"
A2 = (sum(Memory) || (TARGET.Memory ? identicalMember(z,f) : ("a b" >= 1.5)))
A3 = (undefined.Memory =!= Memory)
A4 = error
A5 = false
Name = "a483"

A0 = "tab	here"
A1 = ab
A2 = "$(x)"
A3 = false
A4 = "<"
Name = "a484"

A0 = "x\"
A1 = t[true]
A2 = "#no comment"
A3 = false
A4 = n.x
A5 = 10
Name = "a485"

A0 = 1E+308
A1 = a
A2 = "quote\"q"
A3 = "tab	here"
A4 = length((false || z))
Name = "a486"

A0 = "quote\"q"
A1 = error
A2 = "a\b"
A3 = "ümlaut"
A4 = (b ? unparse(ab) : -3)
Name = "a487"

A0 = size(l)
A1 = (round(tonly) <= max(10000000000.0))
A2 = undefined
A3 = "a'b"
A4 = ((identicalMember(255,TARGET.a) + pow("true",0.1)) >= (missing | { sref,true,Memory }.x))
Name = "a488"

A0 = ((true == "8.10.0") -  -missing)
A1 = (1.5 / "2.5")
A2 = "a\b"
A3 = (-0.0 & error)
Name = "a489"

A0 = error
A1 = "a, b"
A2 = false
Name = "a490"

A0 = stringListsIntersect(false, !"a, b",((z >> 2147483648) | 0.0[true]))
A1 = (n ? 10 : n)
A2 = false
A3 = "a\b"
A4 = MY.a
Name = "a491"

A0 = "ümlaut"
A1 = TARGET.Memory.y
A2 = ( !false =!= absTime())
Name = "a492"

A0 = "quote\"q"
A1 = "x\"
A2 = isError(zr)
A3 = "quote\"q"
A4 = "#no comment"
Name = "a493"

A0 = true
A1 = "tab	here"
Name = "a494"

A0 = (u || error)
A1 = z
Name = "a495"

A0 = (MY.a ? Memory : undefined)
A1 = (a > error)
A2 = ((error =?= ab) ? true : isList(stringListSum(x)))
A3 = "$(x)"
Name = "a496"

A0 = TARGET.q
A1 = "ümlaut"
A2 = { true }
A3 = (MY.s && versioncmp("a b",1.5))
Name = "a497"

A0 = Arch
A1 = ceiling((1E+308 - 0.0))
A2 =  -stringListIMember(true,"a,b,c",0.0)
Name = "a498"

A0 = (error[10000000000.0] >>> (z * Name))
Name = "a499"

