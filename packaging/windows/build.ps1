# Windows: the one-folder build (PyInstaller), its selftest, and the Inno Setup installer, under dist\.
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1
# Needs Python 3.11+ and Inno Setup 6 (choco install innosetup); the release workflow runs this script.
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..\..")
$python = if ($env:PYTHON) { $env:PYTHON } else { "python" }
if (-not (Test-Path ".venv\Scripts\python.exe")) { & $python -m venv .venv }
$py = Resolve-Path ".venv\Scripts\python.exe"
& $py -m pip --disable-pip-version-check -q install -e ".[packaging]"
if ($LASTEXITCODE) { throw "pip install failed" }
$version = & $py -c "import tomllib; print(tomllib.load(open('pyproject.toml','rb'))['project']['version'])"

$env:SERVICE_CONSOLE_ICONS = Join-Path (Get-Location) "build\icons"
& $py packaging\icons\derive.py $env:SERVICE_CONSOLE_ICONS | Out-Null
& $py -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build\pyinstaller packaging\service-console.spec
if ($LASTEXITCODE) { throw "PyInstaller failed" }

# The windowed exe has no console: the selftest writes its JSON line to a file.
$report = Join-Path $env:TEMP "service-console-selftest.json"
Remove-Item $report -ErrorAction SilentlyContinue
$env:QT_QPA_PLATFORM = "offscreen"
$process = Start-Process -FilePath "dist\service-console\service-console.exe" -ArgumentList "--selftest", "--report", $report -Wait -PassThru
Remove-Item Env:\QT_QPA_PLATFORM
$line = Get-Content $report -ErrorAction SilentlyContinue
Write-Output "selftest: $line"
if ($process.ExitCode -ne 0 -or -not ($line -match '"ok": true')) { throw "the frozen app's selftest failed" }

$iscc = (Get-Command iscc.exe -ErrorAction SilentlyContinue).Source
if (-not $iscc) { $iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
& $iscc /Q "/DAppVersion=$version" "/DSourceDir=$(Resolve-Path dist\service-console)" "/DOutputDir=$(Resolve-Path dist)" "/DIconFile=$env:SERVICE_CONSOLE_ICONS\service-console.ico" packaging\windows\service-console.iss
if ($LASTEXITCODE) { throw "Inno Setup failed" }
Get-ChildItem dist\*.exe | ForEach-Object { "{0} {1:N1} MB" -f $_.Name, ($_.Length / 1MB) }
